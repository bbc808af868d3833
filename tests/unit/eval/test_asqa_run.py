"""The ASQA run's model gate (scripted clients, not real models) and its per-method summary."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from backend.config import Settings
from backend.errors import ConfigError
from backend.eval.asqa import load_asqa
from backend.eval.asqa_run import AsqaRecord, answerable, model_gate, run_asqa_eval, summarise_asqa
from tests.conftest import ASQA_FIXTURE
from tests.fakes.scripted_llm import ScriptedLLM
from tests.unit.llm.test_capability import obedient, rambling


def test_an_instruction_following_model_passes_the_gate() -> None:
    verdict = model_gate(ScriptedLLM(obedient, label="ollama:asqa-obedient"), allow_weak_model=False)
    assert "follows the structured formats (3/3" in verdict


def test_the_embedded_base_model_is_refused_without_being_asked_anything() -> None:
    base = ScriptedLLM("never used", label="embedded:gemma-3-270m (base)")
    with pytest.raises(ConfigError) as caught:
        model_gate(base, allow_weak_model=False)
    assert "instruction-following model" in caught.value.what and "base model" in caught.value.what
    assert "--allow-weak-model" in caught.value.fix and "Ollama" in caught.value.fix
    assert base.prompts == []


def test_a_failing_model_runs_only_when_allowed_and_the_verdict_says_so() -> None:
    weak = ScriptedLLM(rambling, label="ollama:asqa-rambler")
    with pytest.raises(ConfigError):
        model_gate(weak, allow_weak_model=False)
    assert "plumbing" in model_gate(weak, allow_weak_model=True)


def test_questions_without_passages_are_not_asked() -> None:
    assert [q.sample_id for q in answerable(load_asqa(ASQA_FIXTURE))] == ["-100001", "-100002"]


def test_summary_is_in_percent_and_a_failed_answer_counts_as_zero() -> None:
    records = [
        AsqaRecord("1", "standard_rag", 0.5, 1.0, 30, 100, 2.0, 1, "answer"),
        AsqaRecord("2", "standard_rag", 0.0, 0.0, 0, 0, 1.0, 0, "", "[E200] server down"),
        AsqaRecord("1", "extractive", 0.25, None, 10, 0, 0.5, 0, "text"),
    ]
    rag, extractive = summarise_asqa(records)
    assert rag["questions"] == 2 and rag["errors"] == 1
    assert rag["rouge_l"] == 25.0 and rag["str_em"] == 50.0 and rag["answer_words"] == 15.0
    assert extractive["rouge_l"] == 25.0 and extractive["str_em"] != extractive["str_em"], "NaN: no aliases"


def test_resuming_under_another_setting_is_refused_as_in_qa_runs(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path / "data", llm_backend="ollama", llm_model="asqa-obedient")
    llm = ScriptedLLM(obedient, label=settings.llm_label)
    out = tmp_path / "run"
    run_asqa_eval(
        SimpleNamespace(settings=settings, llm=llm), ASQA_FIXTURE, ["standard_rag"], out, n_questions=0
    )
    changed = SimpleNamespace(settings=settings.updated(llm_temperature=0.7), llm=llm)
    with pytest.raises(ConfigError, match=r"llm_temperature: 0.2 then, 0.7 now"):
        run_asqa_eval(changed, ASQA_FIXTURE, ["standard_rag"], out, n_questions=0)
