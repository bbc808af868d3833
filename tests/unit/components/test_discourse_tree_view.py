"""The retrieval-tree view's HTML: collapsible nodes, marks, escaping, and the node cap."""

from __future__ import annotations

from components.discourse_tree_view import relation_label, text_html, tree_html
from tests.unit.retrieval.conftest import leaves_tree


def test_nodes_are_nested_details_with_relation_depth_producer_and_marks() -> None:
    tree = leaves_tree(["alpha beta", "gamma", "delta"], [(0, 1), (3, 2)])
    html = tree_html(tree, hits={3: (1, 0.71)}, selected={0})
    assert html.count("<details") == 2 and html.count('class="leaf"') == 3
    assert "elaboration · ELABORATION (NS)" in html and "depth 0" in html and "merge" in html
    assert "★ rank 1 · 0.710" in html and "✔ selected" in html
    assert html.index('data-node="4"') < html.index('data-node="3"') < html.index('data-node="0"')


def test_document_text_is_escaped_everywhere() -> None:
    tree = leaves_tree(["<script>alert(1)</script>", "<img src=x onerror=alert(2)>"], [(0, 1)])
    html = tree_html(tree) + text_html("<b>bold</b> & <i>x</i>", [(0, 11)])
    assert "<script>" not in html and "<img" not in html and "<b>" not in html
    assert "&lt;script&gt;" in html and "<mark>&lt;b&gt;bold&lt;/b&gt;</mark>" in html


def test_large_trees_are_cut_with_a_count_and_can_be_viewed_from_a_node() -> None:
    leaves = [f"w{i}" for i in range(8)]
    tree = leaves_tree(leaves, [(0, 1), (2, 3), (4, 5), (6, 7), (8, 9), (10, 11), (12, 13)])
    cut = tree_html(tree, max_nodes=5)
    assert "10 more nodes not drawn" in cut
    sub = tree_html(tree, root=8)
    assert 'data-node="8"' in sub and 'data-node="4"' not in sub


def test_relation_labels() -> None:
    assert relation_label("causal", "SN") == "causal · CAUSE (SN)"
    assert relation_label(None, None) == ""
