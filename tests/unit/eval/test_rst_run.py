"""Per-document RST-Parseval counts on GUM dev add up to the all-at-once figures."""

from __future__ import annotations

import pytest

from backend.discourse.gum import GumDocument, load_split
from backend.discourse.gum_eval import branching_parser, gold_paragraphs_parser, score
from backend.eval.rst_parseval import METRICS
from backend.eval.rst_run import ParserRow, majority_labels, score_document, summarise_rst, total_scores
from tests.conftest import SHARED_DATA

GUM = SHARED_DATA / "gum"


@pytest.fixture(scope="module")
def dev_docs() -> list[GumDocument]:
    if not (GUM / "dev" / "rst").is_dir():
        pytest.skip(f"GUM data not found at {GUM}")
    return load_split("dev", GUM).documents[:5]


def test_summed_document_counts_equal_scoring_all_documents_at_once(dev_docs: list[GumDocument]) -> None:
    row = ParserRow("right_branching", "right", branching_parser("right", "NN", "joint"))
    records = [r for doc in dev_docs for r in score_document(doc, row)]
    assert len(records) == 4 * len(dev_docs), "two levels, root included and excluded"
    for include_root in (True, False):
        expected = score(dev_docs, row.predict, include_root)
        for level in ("paragraph", "document"):
            mine = [r for r in records if r.level == level and r.include_root == include_root]
            assert total_scores(mine) == expected[level]


def test_summary_gives_f1_per_parser_level_and_root_setting(dev_docs: list[GumDocument]) -> None:
    rows = [
        ParserRow("oracle_paragraphs_first", "oracle", gold_paragraphs_parser()),
        ParserRow("left_branching", "left", branching_parser("left", "NN", "joint")),
    ]
    records = [r for row in rows for doc in dev_docs for r in score_document(doc, row)]
    summary = summarise_rst(records)
    assert [(s["parser"], s["level"], s["root"]) for s in summary[:4]] == [
        ("oracle_paragraphs_first", "paragraph", "included"),
        ("oracle_paragraphs_first", "document", "included"),
        ("oracle_paragraphs_first", "paragraph", "excluded"),
        ("oracle_paragraphs_first", "document", "excluded"),
    ]
    assert all(summary[0][m] == 100.0 for m in METRICS), "gold paragraph trees match themselves"
    assert summary[1]["span"] < 100.0, "paragraphs-first cannot reach every document-level span"
    assert all(s["documents"] == len(dev_docs) for s in summary)
    left = [s for s in summary if s["parser"] == "left_branching"]
    assert left and all(s["span"] < summary[0]["span"] for s in left)


def test_the_majority_label_is_the_most_frequent_gold_pair(dev_docs: list[GumDocument]) -> None:
    nuclearity, relation = majority_labels(dev_docs)
    pairs = [
        (n.nuclearity, n.relation)
        for d in dev_docs
        for t in [*d.paragraph_trees, d.paragraphs_tree]
        for n in t.nodes
    ]
    assert pairs.count((nuclearity, relation)) == max(pairs.count(p) for p in set(pairs))
