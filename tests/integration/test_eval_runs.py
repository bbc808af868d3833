"""Retrieval, RST and ASQA runs on real data and models: scores, progress counts, resuming, the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from backend.config import Settings
from backend.eval.retrieval_run import run_retrieval_eval
from backend.eval.rst_run import run_rst_eval
from backend.eval.run_files import RECORDS, SUMMARY, SUMMARY_JSON
from backend.studio import Studio
from scripts.evaluate import main
from tests.conftest import ASQA_FIXTURE, SHARED_DATA

pytestmark = pytest.mark.integration
QASPER = SHARED_DATA / "qasper" / "qasper-dev-v0.3.json"
GUM = SHARED_DATA / "gum"


def _tear_last_line(path: Path) -> None:
    lines = path.read_text().splitlines()
    path.write_text("\n".join(lines[:-1]) + "\n" + lines[-1][:15])


@pytest.mark.skipif(not QASPER.exists(), reason="../shared/data/qasper is not beside the checkout")
def test_retrieval_run_scores_each_row_reports_counts_and_resumes(tmp_path: Path) -> None:
    studio = Studio(Settings(data_dir=tmp_path / "data"))
    out = tmp_path / "run"
    events: list[tuple[int, int]] = []
    options = {"methods": ["flatten_chunk", "disretrieval"], "budgets": [200], "n_papers": 1}
    records = run_retrieval_eval(
        studio, QASPER, out, **options, progress=lambda s, d, t: events.append((d, t))
    )
    questions = len({r.question_id for r in records})
    assert questions >= 1 and len(records) == 2 * questions
    assert events[0] == (0, 2 * questions) and events[-1] == (2 * questions, 2 * questions)
    assert all(0 <= r.f1 <= 1 and 0 < r.words <= 200 for r in records)
    assert any(r.recall > 0 for r in records), "the paper's own evidence is found"
    assert (out / SUMMARY).read_text().splitlines()[0] == "method,budget,f1,recall,questions"

    _tear_last_line(out / RECORDS)
    events.clear()
    again = run_retrieval_eval(studio, QASPER, out, **options, progress=lambda s, d, t: events.append((d, t)))
    assert sorted(map(repr, again)) == sorted(map(repr, records)), "only the torn row is redone, identically"
    assert events[0] == (2 * questions - 1, 2 * questions)


@pytest.mark.skipif(not (GUM / "dev").is_dir(), reason="../shared/data/gum is not beside the checkout")
def test_rst_run_on_a_slice_of_gum_dev_resumes_without_rescoring(tmp_path: Path) -> None:
    out = tmp_path / "rst"
    options = {"gum_dir": GUM, "cache_dir": tmp_path / "cache", "parsers": ["right_branching", "trained"]}
    events: list[tuple[int, int]] = []
    records = run_rst_eval(out, **options, limit=2, progress=lambda s, d, t: events.append((d, t)))
    assert len(records) == 2 * 2 * 4 and events[-1] == (4, 4)
    summary = json.loads((out / SUMMARY_JSON).read_text())
    trained = [r for r in summary["rows"] if r["parser"] == "trained"]
    assert {(r["level"], r["root"]) for r in trained} == {
        (level, root) for level in ("paragraph", "document") for root in ("included", "excluded")
    }
    assert all(0 < r["span"] <= 100 and r["documents"] == 2 for r in trained)
    events.clear()
    again = run_rst_eval(out, **options, limit=2, progress=lambda s, d, t: events.append((d, t)))
    assert len(again) == len(records) and events[-1] == (4, 4) and len(events) == 2, "nothing rescored"


def test_asqa_cli_refuses_the_base_model_then_runs_the_plumbing_when_allowed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("STUDIO_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("STUDIO_CONFIG", str(tmp_path / "studio.toml"))
    monkeypatch.setenv("STUDIO_LLM_MAX_TOKENS", "30")
    out = tmp_path / "asqa"
    command = [
        "asqa",
        "--dataset",
        str(ASQA_FIXTURE),
        "--methods",
        "extractive,standard_rag",
        "--out",
        str(out),
    ]
    with pytest.raises(SystemExit) as refused:
        main([*command, "--questions", "1"])
    assert refused.value.code == 2
    assert "[E100] ASQA long answers need an instruction-following model" in capsys.readouterr().err
    assert not (out / RECORDS).exists()

    main([*command, "--questions", "1", "--allow-weak-model"])
    records = [json.loads(line) for line in (out / RECORDS).read_text().splitlines()]
    assert [(r["sample_id"], r["method"]) for r in records] == [
        ("-100001", "extractive"),
        ("-100001", "standard_rag"),
    ]
    assert all(not r["error"] and r["answer"] for r in records)
    extractive = records[0]
    assert extractive["rouge_l"] > 0.1 and extractive["str_em"] is not None
    meta = json.loads((out / SUMMARY_JSON).read_text())["meta"]
    assert "plumbing" in meta["model_check"] and meta["llm"].startswith("embedded:")
    assert "method=extractive" in capsys.readouterr().out
