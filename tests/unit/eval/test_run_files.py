"""Run folders: resuming after a torn write, refusing to mix settings or kinds, summaries."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from backend.errors import ConfigError
from backend.eval.run_files import (
    MANIFEST,
    RECORDS,
    SUMMARY,
    SUMMARY_JSON,
    append_record,
    finished_keys,
    list_runs,
    open_run,
    read_records,
    run_kind,
    write_summary,
)


def test_finished_keys_skip_a_torn_last_line_and_appends_start_clean(tmp_path: Path) -> None:
    path = tmp_path / RECORDS
    append_record(path, {"id": "a", "method": "m", "score": 1})
    append_record(path, {"id": "b", "method": "m", "score": 2})
    path.write_text(path.read_text() + '{"id": "c", "met')  # killed mid-write
    assert finished_keys(path, ("id", "method")) == {("a", "m"), ("b", "m")}
    append_record(path, {"id": "c", "method": "m", "score": 3})
    assert [r["id"] for r in read_records(path)] == ["a", "b", "c"]
    assert finished_keys(tmp_path / "absent.jsonl", ("id",)) == set()


def test_a_rerun_with_other_settings_is_refused_and_says_which(tmp_path: Path) -> None:
    out = tmp_path / "run"
    open_run(out, "retrieval", {"k": 3, "embedder": "minilm"})
    open_run(out, "retrieval", {"k": 3, "embedder": "minilm"})  # same settings: resumes
    with pytest.raises(ConfigError, match=r"k: 3 then, 5 now") as caught:
        open_run(out, "retrieval", {"k": 5, "embedder": "minilm"})
    assert "another output folder" in str(caught.value)
    with pytest.raises(ConfigError, match="holds a retrieval run, not a rst run"):
        open_run(out, "rst", {"k": 3, "embedder": "minilm"})


def test_folders_from_before_manifests_count_as_qa_runs(tmp_path: Path) -> None:
    legacy, other, empty = tmp_path / "legacy", tmp_path / "other", tmp_path / "empty"
    legacy.mkdir()
    append_record(legacy / RECORDS, {"paper_id": "p"})
    open_run(other, "rst", {})
    empty.mkdir()
    assert run_kind(legacy) == "qa" and run_kind(other) == "rst" and run_kind(empty) is None
    assert list_runs(tmp_path, "qa") == ["legacy"] and list_runs(tmp_path, "rst") == ["other"]
    with pytest.raises(ConfigError, match="older run"):
        open_run(legacy, "retrieval", {})
    open_run(legacy, "qa", {"dataset": "x"})  # adopted: the manifest is written
    assert json.loads((legacy / MANIFEST).read_text())["kind"] == "qa"


def test_summary_is_written_as_csv_and_json_with_rounded_floats(tmp_path: Path) -> None:
    rows = [{"method": "a", "f1": 41.30199598378, "questions": 3}, {"method": "b", "f1": 0.5, "questions": 1}]
    write_summary(tmp_path, rows, {"budgets": [200]})
    assert (tmp_path / SUMMARY).read_text().splitlines() == ["method,f1,questions", "a,41.302,3", "b,0.5,1"]
    payload = json.loads((tmp_path / SUMMARY_JSON).read_text())
    assert payload["meta"] == {"budgets": [200]} and payload["rows"][0]["f1"] == 41.302
