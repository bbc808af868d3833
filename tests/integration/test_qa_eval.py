"""The evaluation runner on real QASPER dev papers with the extractive method (no LLM), and resuming."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from backend.config import Settings
from backend.eval.qa_run import run_qa_eval
from backend.eval.run_files import MANIFEST, RECORDS, SUMMARY, SUMMARY_JSON
from backend.studio import Studio
from tests.conftest import REPO_ROOT

pytestmark = pytest.mark.integration
QASPER = REPO_ROOT.parent / "shared" / "data" / "qasper" / "qasper-dev-v0.3.json"


@pytest.mark.skipif(not QASPER.exists(), reason="../shared/data/qasper is not beside the checkout")
def test_runs_scores_and_resumes_without_redoing_work(tmp_path: Path) -> None:
    studio = Studio(Settings(data_dir=tmp_path / "data"))
    out = tmp_path / "run"
    events: list[tuple[int, int]] = []
    records = run_qa_eval(
        studio,
        QASPER,
        ["extractive"],
        out,
        n_papers=2,
        per_paper=2,
        progress=lambda _s, d, t: events.append((d, t)),
    )
    assert len(records) == 4 and not any(r.error for r in records)
    assert all(0.0 <= r.answer_f1 <= 1.0 and r.evidence_recall is not None for r in records)
    assert any(r.evidence_recall > 0 for r in records), "extractive answers read the paper's own text"
    assert events[-1] == (4, 4)
    lines = (out / RECORDS).read_text().splitlines()
    (out / RECORDS).write_text("\n".join(lines[:3]) + "\n" + lines[3][:20])  # a crash mid-write
    again = run_qa_eval(studio, QASPER, ["extractive"], out, n_papers=2, per_paper=2)
    assert len(again) == 4
    assert [json.loads(line)["question_id"] for line in (out / RECORDS).read_text().splitlines()[:3]] == [
        r.question_id for r in records[:3]
    ]
    assert (out / SUMMARY).read_text().startswith("method,questions,errors,answer_f1")
    assert json.loads((out / SUMMARY_JSON).read_text())["rows"][0]["questions"] == 4
    assert json.loads((out / MANIFEST).read_text())["kind"] == "qa"
