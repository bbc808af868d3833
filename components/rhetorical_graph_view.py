"""The inter-chunk rhetorical graph as an interactive pyvis network, self-contained for offline use.

Chunks are nodes; a directed edge i -> j carries i's relation to j, coloured by family (support,
elaboration, cause, time, comparison, conflict). UNRELATED edges are left out unless asked for.
CONTRADICTS and CONTRASTS_WITH edges are drawn thick and red so disagreement stands out.
pyvis's "in_line" mode embeds vis-network but still links bootstrap from a CDN (and a local
node_modules path): every external <script src> and <link href> is stripped, so the page needs no
network.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from pyvis.network import Network

from backend.discourse.rhetorical_graph import RhetoricalGraph

FAMILIES: dict[str, tuple[str, tuple[str, ...]]] = {
    "support": ("#2e7d32", ("SUPPORTS", "JUSTIFIES", "MOTIVATES", "ENABLES")),
    "elaboration": ("#1565c0", ("ELABORATES", "EXEMPLIFIES", "SPECIFIES", "GENERALIZES", "SUPPLEMENTS")),
    "context": ("#6a1b9a", ("BACKGROUND_FOR",)),
    "cause": ("#ef6c00", ("CAUSES", "RESULTS_FROM", "PREVENTS")),
    "time": ("#00838f", ("PRECEDES", "FOLLOWS", "SIMULTANEOUS")),
    "comparison": ("#6d4c41", ("COMPARES_WITH", "REPLACES")),
    "conflict": ("#c62828", ("CONTRADICTS", "CONTRASTS_WITH")),
    "none": ("#bdbdbd", ("UNRELATED",)),
}
HIGHLIGHTED = frozenset({"CONTRADICTS", "CONTRASTS_WITH"})
_FAMILY_OF = {label: family for family, (_, labels) in FAMILIES.items() for label in labels}
_EXTERNAL = re.compile(
    r"<script\b[^>]*\bsrc\s*=[^>]*>\s*</script>|<link\b[^>]*\bhref\s*=[^>]*/?>", re.IGNORECASE | re.DOTALL
)


def family(label: str) -> str:
    return _FAMILY_OF.get(label, "none")


def colour(label: str) -> str:
    return FAMILIES[family(label)][0]


def strip_external(html: str) -> str:
    """Remove tags that load scripts or styles from elsewhere; inline ones stay."""
    return _EXTERNAL.sub("", html)


def _legend() -> str:
    items = "".join(
        f'<span style="color:{c};margin-right:12px">━ {name}</span>'
        for name, (c, _) in FAMILIES.items()
        if name != "none"
    )
    return (
        f'<div style="font:12px sans-serif;margin:4px 0">{items}'
        "<b style='color:#c62828'>thick red: contradicts / contrasts</b></div>"
    )


def render_graph_html(
    graph: RhetoricalGraph,
    node_titles: Sequence[str],
    show_unrelated: bool = False,
    not_predicted: Sequence[Sequence[int]] = (),
    height_px: int = 460,
) -> str:
    """A whole HTML page for st.iframe; `node_titles[i]` is the hover text of chunk i."""
    net = Network(height=f"{height_px}px", width="100%", directed=True, cdn_resources="in_line")
    for i in range(graph.n_nodes):
        title = node_titles[i] if i < len(node_titles) else f"chunk {i + 1}"
        net.add_node(i, label=f"[{i + 1}]", title=title, shape="circle", color="#e3f2fd")
    missing = {(int(p[0]), int(p[1])) for p in not_predicted}
    for edge in graph.edges:
        if edge.label == "UNRELATED" and not show_unrelated:
            continue
        strong = edge.label in HIGHLIGHTED
        note = " (not predicted)" if (edge.source, edge.target) in missing else ""
        confidence = f", p={edge.confidence:.2f}" if edge.confidence is not None else ""
        net.add_edge(
            edge.source,
            edge.target,
            label=edge.label,
            title=f"[{edge.source + 1}] -> [{edge.target + 1}]: {edge.label}{confidence}{note}",
            color=colour(edge.label),
            width=4 if strong else 1.5,
            dashes=edge.label == "UNRELATED",
            font={"size": 10, "color": colour(edge.label)},
        )
    net.set_options(
        '{"physics": {"barnesHut": {"springLength": 180}}, "edges": {"smooth": {"type": "curvedCW"}}}'
    )
    page = strip_external(net.generate_html())
    return page.replace("<body>", f"<body>{_legend()}", 1)


def edge_rows(graph: RhetoricalGraph, not_predicted: Sequence[Sequence[int]] = ()) -> list[dict[str, object]]:
    """Related pairs as table rows (source, target, label, family, confidence, predicted)."""
    missing = {(int(p[0]), int(p[1])) for p in not_predicted}
    return [
        {
            "from": f"[{e.source + 1}]",
            "to": f"[{e.target + 1}]",
            "relation": e.label,
            "family": family(e.label),
            "confidence": e.confidence,
            "predicted": (e.source, e.target) not in missing,
        }
        for e in graph.edges
        if e.label != "UNRELATED"
    ]
