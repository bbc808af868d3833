"""The Disco-RAG viewers' HTML: the graph page is self-contained, the tree outline shows roles."""

from __future__ import annotations

import json
import re

from backend.discourse.rhetorical_graph import Edge, RhetoricalGraph
from backend.discourse.rst_tree import RSTNode, RSTTree, Unit
from components.rhetorical_graph_view import edge_rows, render_graph_html, strip_external
from components.rst_outline_view import render_rst_outline_html

GRAPH = RhetoricalGraph(
    3,
    [Edge(0, 1, "SUPPORTS"), Edge(1, 0, "UNRELATED"), Edge(1, 2, "CONTRADICTS"), Edge(2, 1, "UNRELATED")],
    "ollama:test",
)
_EXTERNAL = re.compile(r"<(?:script|link)\b[^>]*(?:src|href)\s*=\s*[\"']?(?:https?:)?//", re.IGNORECASE)


def test_the_graph_page_loads_nothing_from_the_network() -> None:
    html = render_graph_html(GRAPH, ["a", "b", "c"])
    assert not _EXTERNAL.search(html), "no http(s) script or stylesheet links"
    assert not re.search(r"<script\b[^>]*\bsrc=", html), "no external scripts at all (node_modules too)"
    assert "new vis.Network" in html and "vis-network" in html.lower(), "vis-network is inlined"


def _edges(html: str) -> list[dict]:
    return json.loads(re.search(r"edges = new vis\.DataSet\((\[.*?\])\);", html).group(1))


def test_unrelated_edges_are_hidden_unless_asked_and_conflicts_stand_out() -> None:
    hidden = _edges(render_graph_html(GRAPH, ["a", "b", "c"]))
    shown = _edges(render_graph_html(GRAPH, ["a", "b", "c"], show_unrelated=True))
    assert [e["label"] for e in hidden] == ["SUPPORTS", "CONTRADICTS"]
    assert [e["label"] for e in shown].count("UNRELATED") == 2
    supports, contradicts = hidden
    assert contradicts["width"] > supports["width"] and contradicts["color"] == "#c62828"
    assert (contradicts["from"], contradicts["to"], contradicts["arrows"]) == (1, 2, "to")
    assert [r["relation"] for r in edge_rows(GRAPH)] == ["SUPPORTS", "CONTRADICTS"]


def test_strip_external_keeps_inline_scripts() -> None:
    page = (
        '<link href="https://x/y.css" rel="stylesheet"/><script src="//cdn/z.js"></script>'
        "<script>var a=1;</script>"
    )
    assert strip_external(page) == "<script>var a=1;</script>"


def test_the_tree_outline_marks_roles_and_relations_without_scripts() -> None:
    units = [Unit("Buses are electric."), Unit("They cost more."), Unit("But they run cheaper.")]
    tree = RSTTree(
        units,
        [RSTNode(0, 0, 2, "NS", "ELABORATION"), RSTNode(1, 1, 2, "NN", "CONTRAST")],
        "m",
        "disco-rag-intra",
    )
    html = render_rst_outline_html(tree)
    assert "<script" not in html and html.count("<details") == 2
    assert html.count('class="part N"') == 3 and html.count('class="part S"') == 1
    assert "S · ELABORATION" in html and "N · CONTRAST" in html
    assert "Buses are electric." in html
