"""A document's routing tree drawn on its own: collapsible sections, node kinds, ids, source, escaping."""

from __future__ import annotations

import pytest

from backend.routing.pdf_headings import LAYOUT_PRODUCER, OUTLINE_PRODUCER
from backend.routing.structure_builders import FLAT_PRODUCER, tree_from_document
from components.trajectory_view import structure_tree_html, tree_source
from tests.unit.routing.helpers import hand_tree, hostile_report

HOSTILE = hostile_report()


def test_headings_open_sections_and_content_sits_inside_them_with_ids() -> None:
    html = structure_tree_html(tree_from_document(HOSTILE))
    assert html.count("<details") == 3 and html.count("</details>") == 3  # title and two sections
    assert '<details open data-node="0"><summary class="node heading">' in html
    assert '<details data-node="1"><summary class="node heading">' in html, "sections start closed"
    assert '<div class="node content" data-node="2"><span class="mark">¶ content</span>' in html
    assert html.index('data-node="2"') < html.index("</details>") < html.index('data-node="3"')
    assert '<span class="nid">3:</span>Winter' in html and html.count("▪ heading") == 3


def test_document_text_is_escaped() -> None:
    html = structure_tree_html(tree_from_document(HOSTILE))
    assert "Costs &lt;b&gt;bold&lt;/b&gt;" in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "<script>" not in html and "<b>" not in html


def test_content_under_content_nests_and_a_cap_counts_what_is_left() -> None:
    tree = hand_tree()  # 3 "lead-in" holds list items 4 and 5
    html = structure_tree_html(tree)
    assert '<details data-node="3"><summary class="node content">' in html
    capped = structure_tree_html(tree, max_nodes=5)
    assert capped.count("data-node=") == 5 and "… 9 more nodes not drawn." in capped
    assert capped.count("<details") == capped.count("</details>")


@pytest.mark.parametrize(
    ("producer", "source"),
    [
        ("markdown headings", "document headings"),
        ("markdown headings + qasper section names", "document headings"),
        ("pdf outline (ingestion)", "PDF outline"),
        (OUTLINE_PRODUCER, "PDF outline"),
        (LAYOUT_PRODUCER, "PDF layout cues"),
        (FLAT_PRODUCER, "flat fallback: no headings found"),
    ],
)
def test_the_source_of_the_headings_is_named(producer: str, source: str) -> None:
    assert tree_source(producer) == source
