"""QA runs score the passages read with the one evidence metric (backend/eval/evidence_f1.py)."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from backend.config import Settings
from backend.errors import ConfigError
from backend.eval.qa_run import evaluate_question, evidence_fields, run_qa_eval
from backend.eval.qasper import QasperQuestion
from backend.eval.run_files import MANIFEST
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


def _no_papers(tmp_path: Path) -> Path:
    """A QASPER file without papers: the run opens its folder and scores nothing, so no model is needed."""
    path = tmp_path / "empty.json"
    path.write_text("{}", encoding="utf-8")
    return path


def test_resuming_with_another_word_budget_is_refused_and_names_it(tmp_path: Path) -> None:
    dataset, out = _no_papers(tmp_path), tmp_path / "run"
    settings = Settings(data_dir=tmp_path / "data")
    run_qa_eval(SimpleNamespace(settings=settings), dataset, ["disretrieval"], out)
    run_qa_eval(SimpleNamespace(settings=settings), dataset, ["disretrieval"], out)  # same: resumes
    changed = SimpleNamespace(settings=settings.updated(disr_word_budget=300))
    with pytest.raises(ConfigError, match=r"disr_word_budget: 200 then, 300 now"):
        run_qa_eval(changed, dataset, ["disretrieval"], out)


def test_run_json_records_every_result_setting_but_never_the_api_key(tmp_path: Path) -> None:
    out = tmp_path / "run"
    settings = Settings(data_dir=tmp_path / "data", openai_api_key="sk-very-secret", rdr2_max_expansions=5)
    run_qa_eval(SimpleNamespace(settings=settings), _no_papers(tmp_path), ["rdr2"], out)
    text = (out / MANIFEST).read_text(encoding="utf-8")
    params = json.loads(text)["params"]
    assert "sk-very-secret" not in text and "openai_api_key" not in params
    assert params["rdr2_max_expansions"] == 5 and params["structure_producer"] == "auto"
    assert {"disr_tau_words", "disr_subtree_k", "parser_llm_model", "llm_temperature"} <= set(params)
    assert "data_dir" not in params, "where files live does not change a result"
