"""Draw an RSTTree as a self-contained SVG (no scripts, no CDN): works offline inside st.iframe.

Root on the left, sentences on the right, one row per unit. Each internal node shows its
relation and nuclearity; an edge to a nucleus is solid, to a satellite dashed. Hovering a
sentence or a node shows its full text (SVG <title>).
"""

from __future__ import annotations

from collections.abc import Callable
from html import escape

from backend.discourse.rst_tree import RSTTree

ROW = 26
LEVEL = 118
TEXT_WIDTH = 520
PAD = 12
NUCLEUS = "#1f4e79"
SATELLITE = "#b0652a"


def _short(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _heights(tree: RSTTree) -> dict[tuple[int, int], int]:
    """Height of each node (leaves 0), children before parents without recursion."""
    height = {(i, i): 0 for i in range(len(tree.units))}
    for node in sorted(tree.nodes, key=lambda n: n.end - n.start):
        left, right = node.child_spans
        height[node.span] = 1 + max(height[left], height[right])
    return height


def render_rst_svg(tree: RSTTree, relation_label: Callable[[str], str] = str) -> str:
    """SVG markup for `tree`; `relation_label` maps stored labels to the names shown."""
    n = len(tree.units)
    height = _heights(tree)
    levels = max(height.values())
    x_leaf = PAD + levels * LEVEL
    y: dict[tuple[int, int], float] = {(i, i): PAD + ROW * i + ROW / 2 for i in range(n)}
    for node in sorted(tree.nodes, key=lambda n: n.end - n.start):
        left, right = node.child_spans
        y[node.span] = (y[left] + y[right]) / 2

    def x(span: tuple[int, int]) -> float:
        return x_leaf - height[span] * LEVEL

    parts: list[str] = []
    for node in tree.nodes:
        px, py = x(node.span), y[node.span]
        roles = {"NS": ("N", "S"), "SN": ("S", "N"), "NN": ("N", "N")}[node.nuclearity]
        for child, role in zip(node.child_spans, roles, strict=True):
            colour, dash = (NUCLEUS, "") if role == "N" else (SATELLITE, ' stroke-dasharray="5,4"')
            cx, cy = x(child), y[child]
            parts.append(
                f'<path d="M{px:.1f},{py:.1f} V{cy:.1f} H{cx:.1f}" fill="none" stroke="{colour}" '
                f'stroke-width="{2 if role == "N" else 1.5}"{dash} class="rst-edge rst-{role}"/>'
            )
        label = escape(relation_label(node.relation))
        text = " ".join(u.text for u in tree.units[node.start : node.end + 1])
        parts.append(
            f'<g class="rst-node"><title>{label} ({node.nuclearity}), '
            f"sentences {node.start + 1}-{node.end + 1}: {escape(_short(text, 600))}</title>"
            f'<circle cx="{px:.1f}" cy="{py:.1f}" r="4" fill="{NUCLEUS}"/>'
            f'<text x="{px + 6:.1f}" y="{py - 5:.1f}" font-size="11" fill="#222">{label} '
            f'<tspan fill="#666">{node.nuclearity}</tspan></text></g>'
        )
    for i, unit in enumerate(tree.units):
        parts.append(
            f'<g class="rst-leaf"><title>{escape(unit.text)}</title>'
            f'<text x="{x_leaf + 8:.1f}" y="{y[(i, i)] + 4:.1f}" font-size="12" fill="#111">'
            f'<tspan font-weight="bold">{i + 1}.</tspan> {escape(_short(unit.text, 80))}</text></g>'
        )
    width = x_leaf + TEXT_WIDTH + PAD
    total_height = 2 * PAD + ROW * n
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{total_height}" '
        f'viewBox="0 0 {width:.0f} {total_height}" font-family="sans-serif" role="img" '
        f'aria-label="RST tree over {n} sentences">{"".join(parts)}</svg>'
    )


def render_rst_html(tree: RSTTree, relation_label: Callable[[str], str] = str) -> str:
    """The SVG in a scrollable box with a legend, as a whole page for st.iframe (st.html strips SVG)."""
    legend = (
        f'<div style="font:12px sans-serif;margin-bottom:6px">'
        f'<span style="color:{NUCLEUS}">━━ nucleus (N)</span> &nbsp; '
        f'<span style="color:{SATELLITE}">╌╌ satellite (S)</span> &nbsp; '
        f"labels: relation, then nuclearity of the two children (NS, SN, NN); hover for text</div>"
    )
    style = "overflow:auto;max-height:640px;border:1px solid #ddd;padding:4px"
    box = f'<div style="{style}">{render_rst_svg(tree, relation_label)}</div>'
    return f'<div class="rst-tree-view">{legend}{box}</div>'
