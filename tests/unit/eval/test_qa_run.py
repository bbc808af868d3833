"""QA runs score the passages read with the one evidence metric (backend/eval/evidence_f1.py)."""

from __future__ import annotations

import pytest

from backend.eval.qa_run import evaluate_question, evidence_fields
from backend.eval.qasper import QasperQuestion
from backend.generation.answer import Answer


def test_passages_are_joined_and_the_best_f1_annotator_is_kept_with_its_recall() -> None:
    # annotator 0: "alpha beta" -> precision 2/4, recall 1; annotator 1 shares nothing
    assert evidence_fields(["alpha beta", "gamma delta"], [["alpha beta"], ["zeta"]]) == (1.0, 0.6667)


def test_articles_count_as_tokens_as_in_the_retrieval_benchmark() -> None:
    recall, f1 = evidence_fields(["the cat"], [["cat"]])
    assert recall == 1.0 and f1 == pytest.approx(0.6667)


def test_questions_without_gold_evidence_have_no_evidence_scores() -> None:
    assert evidence_fields(["anything"], []) == (None, None)


class _FailingStudio:
    """Stands in for the studio: its method ran but the answer call failed (as the pipelines report it)."""

    def ask(self, method: str, question: str, doc_ids: list[str]) -> Answer:
        return Answer(
            method,
            question,
            "",
            [],
            [],
            "fake",
            warnings=["The generate stage failed: [E200] server down"],
            failed_stage="generate",
        )


def test_a_failed_answer_is_recorded_as_an_error_not_as_an_empty_answer() -> None:
    question = QasperQuestion("q1", "What is measured?", (("Accuracy is measured.",),), ("accuracy",))
    record = evaluate_question(_FailingStudio(), "disco_rag", "p1", question, "doc")
    assert record.error == "The generate stage failed: [E200] server down"
    assert record.answer_f1 == 0.0 and record.evidence_recall is None
