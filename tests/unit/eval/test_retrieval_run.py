"""Retrieval scoring rows on a hand-built tree: selection at each budget, evidence F1, resuming keys."""

from __future__ import annotations

import numpy as np
import pytest

from backend.errors import ConfigError
from backend.eval.qasper import QasperPaper, QasperQuestion
from backend.eval.retrieval_run import (
    RETRIEVERS,
    RetrievalRecord,
    chosen_papers,
    retrievers,
    score_paper,
    summarise_retrieval,
)
from tests.unit.retrieval.conftest import QUERY, leaves_tree, with_scores


def _question(qid: str, *evidence: str) -> QasperQuestion:
    return QasperQuestion(qid, f"question {qid}?", tuple((e,) for e in evidence))


def test_each_budget_selects_best_units_and_scores_them_in_document_order() -> None:
    tree = leaves_tree(["alpha beta gamma", "delta epsilon", "zeta eta theta"])
    items = {"flatten_sentence": with_scores(tree, [0.9, 0.1, 0.8])}
    question = _question("q1", "alpha beta gamma")
    rows = retrievers(["flatten_sentence"])
    found = list(score_paper(items, "p1", [question], np.stack([QUERY]), rows, [3, 6], k=3))
    assert [(r.budget, r.words) for r in found] == [(3, 3), (6, 6)]
    assert found[0].f1 == pytest.approx(1.0) and found[0].recall == pytest.approx(1.0)
    # 6 words: "alpha beta gamma zeta eta theta" -> precision 1/2, recall 1
    assert found[1].f1 == pytest.approx(2 / 3) and found[1].precision == pytest.approx(0.5)
    assert found[1].annotator == 0 and found[1].method == "flatten_sentence"


def test_rows_already_recorded_are_not_scored_again() -> None:
    tree = leaves_tree(["alpha beta gamma", "delta epsilon"])
    items = {"flatten_sentence": with_scores(tree, [0.9, 0.1])}
    questions = [_question("q1", "alpha"), _question("q2", "delta")]
    done = {("p1", "q1", "flatten_sentence", 3)}
    rows = retrievers(["flatten_sentence"])
    found = score_paper(items, "p1", questions, np.stack([QUERY, QUERY]), rows, [3], 3, done)
    assert [r.question_id for r in found] == ["q2"]


def test_unknown_retrievers_are_refused_with_the_known_ones() -> None:
    with pytest.raises(ConfigError) as caught:
        retrievers(["disretrieval", "bm25"])
    assert "'bm25'" in str(caught.value) and all(name in caught.value.fix for name in RETRIEVERS)
    with pytest.raises(ConfigError, match="none given"):
        retrievers([])
    assert RETRIEVERS["disretrieval (paper ranking)"].context_weight == 1.0


def test_papers_without_text_evidence_are_passed_over() -> None:
    def paper(pid: str, *questions: QasperQuestion) -> QasperPaper:
        return QasperPaper(pid, pid, "", (), questions)

    papers = [paper("a", _question("1", "x")), paper("b", _question("2")), paper("c", _question("3", "y"))]
    assert [p.paper_id for p in chosen_papers(papers, skip=0, count=5)] == ["a", "c"]
    assert [p.paper_id for p in chosen_papers(papers, skip=1, count=1)] == ["c"]


def test_summary_means_are_percent_per_retriever_and_budget_in_first_seen_order() -> None:
    def record(method: str, budget: int, f1: float, recall: float) -> RetrievalRecord:
        return RetrievalRecord("p", f"q{f1}", method, budget, f1, recall, 0.0, 0, budget)

    records = [
        record("raptor", 200, 0.5, 1.0),
        record("raptor", 200, 0.3, 0.5),
        record("bisection", 200, 1, 1),
    ]
    rows = summarise_retrieval(records)
    assert [(r["method"], r["budget"], r["questions"]) for r in rows] == [
        ("raptor", 200, 2),
        ("bisection", 200, 1),
    ]
    assert rows[0]["f1"] == pytest.approx(40.0) and rows[0]["recall"] == pytest.approx(75.0)
