"""An RST tree as nested, collapsible HTML (<details>): no scripts, so it works offline and anywhere.

Each join is a collapsible row showing its relation and nuclearity; its two parts sit under it,
each tagged with its role on the edge from the join: a nucleus with a solid blue bar and a bold
N, a satellite with a dashed orange bar, lighter text and an S, plus the relation on the
satellite's edge (on both edges for N N joins). Leaves are the EDUs, numbered, with full text.
"""

from __future__ import annotations

from collections.abc import Callable
from html import escape

from backend.discourse.rst_tree import RSTTree

NUCLEUS = "#1f4e79"
SATELLITE = "#b0652a"

STYLE = f"""
<style>
.rst-outline {{ font: 13px/1.45 sans-serif; color: #1b1b1b; }}
.rst-outline details > summary {{ cursor: pointer; list-style-position: outside; margin: 2px 0; }}
.rst-outline .part {{ margin-left: 14px; padding-left: 8px; }}
.rst-outline .part.N {{ border-left: 3px solid {NUCLEUS}; }}
.rst-outline .part.S {{ border-left: 2px dashed {SATELLITE}; color: #444; }}
.rst-outline .edge {{ font-size: 11px; padding: 0 5px; border-radius: 8px; margin-right: 4px; }}
.rst-outline .edge.N {{ background: #dbe7f3; color: {NUCLEUS}; font-weight: bold; }}
.rst-outline .edge.S {{ background: #f6e3d4; color: {SATELLITE}; font-style: italic; }}
.rst-outline .rel {{ font-weight: bold; letter-spacing: .02em; }}
.rst-outline .nuc {{ color: #777; font-size: 11px; }}
.rst-outline .edu-no {{ color: #777; font-size: 11px; margin-right: 4px; }}
.rst-outline .part.S .edu {{ font-style: italic; }}
</style>
"""

_ROLES = {"NS": ("N", "S"), "SN": ("S", "N"), "NN": ("N", "N")}


def _edge(role: str, relation: str, nuclearity: str) -> str:
    text = "N" if role == "N" and nuclearity != "NN" else f"{role} · {escape(relation)}"
    return f'<span class="edge {role}" title="{"nucleus" if role == "N" else "satellite"}">{text}</span>'


def _span_html(tree: RSTTree, span: tuple[int, int], label: Callable[[str], str], depth: int) -> str:
    if span[0] == span[1]:
        unit = tree.units[span[0]]
        return f'<span class="edu-no">[{span[0] + 1}]</span><span class="edu">{escape(unit.text)}</span>'
    node = tree.by_span()[span]
    relation = label(node.relation)
    parts = []
    for child, role in zip(node.child_spans, _ROLES[node.nuclearity], strict=True):
        inner = _span_html(tree, child, label, depth + 1)
        parts.append(f'<div class="part {role}">{_edge(role, relation, node.nuclearity)}{inner}</div>')
    summary = (
        f'<span class="rel">{escape(relation)}</span> <span class="nuc">{node.nuclearity} · EDUs '
        f"{node.start + 1}–{node.end + 1}</span>"
    )
    opened = " open" if depth < 4 else ""
    return f"<details{opened}><summary>{summary}</summary>{''.join(parts)}</details>"


def render_rst_outline_html(tree: RSTTree, relation_label: Callable[[str], str] = str) -> str:
    """Self-contained HTML (a style block and nested <details>) for `tree`."""
    body = _span_html(tree, (0, len(tree.units) - 1), relation_label, 0)
    return f'{STYLE}<div class="rst-outline">{body}</div>'
