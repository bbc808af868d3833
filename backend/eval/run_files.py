"""The files of one evaluation run, shared by every kind so each can stop and resume the same way.

A run folder holds `run.json` (its kind and the settings its numbers depend on), `records.jsonl`
(one scored item per line, appended as soon as it exists, so a killed run loses at most the
line it was writing) and `summary.csv` / `summary.json` (means, rewritten at the end of a run).
A rerun reads the keys already in `records.jsonl` and skips them; `run.json` refuses a rerun
whose settings would mix numbers from two setups in one table.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from backend.config import Settings
from backend.errors import ConfigError

RECORDS = "records.jsonl"
SUMMARY = "summary.csv"
SUMMARY_JSON = "summary.json"
MANIFEST = "run.json"
LEGACY_KIND = "qa"
"""Run folders written before `run.json` existed hold QA records."""


def finished_keys(path: Path, fields: Sequence[str]) -> set[tuple]:
    """Keys (values of `fields`) already recorded; drops a torn last line so appends start clean."""
    if not path.exists():
        return set()
    done, kept = set(), []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            row = json.loads(line)
            done.add(tuple(row[f] for f in fields))
        except (ValueError, KeyError, TypeError):
            continue
        kept.append(line)
    path.write_text("".join(f"{line}\n" for line in kept), encoding="utf-8")
    return done


def append_record(path: Path, row: Mapping[str, Any]) -> None:
    with path.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(row) + "\n")


def read_records(path: Path) -> list[dict[str, Any]]:
    """Every complete JSON line of `path` (none when it does not exist)."""
    if not path.exists():
        return []
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            row = json.loads(line)
        except ValueError:
            continue
        if isinstance(row, dict):
            rows.append(row)
    return rows


def write_summary(out_dir: Path, rows: Sequence[Mapping[str, Any]], meta: Mapping[str, Any]) -> None:
    """`summary.csv` with `rows` (floats to 4 decimals), and `summary.json` with them and their settings."""
    if not rows:
        return
    rows = [{k: round(v, 4) if isinstance(v, float) else v for k, v in r.items()} for r in rows]
    with (out_dir / SUMMARY).open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    payload = {"meta": dict(meta), "rows": [dict(r) for r in rows]}
    (out_dir / SUMMARY_JSON).write_text(json.dumps(payload, indent=1), encoding="utf-8")


def settings_params(settings: Settings) -> dict[str, Any]:
    """The model's label and every setting that can change a run's numbers (never the API key)."""
    return {"llm": settings.llm_label, **settings.result_settings()}


def open_run(out_dir: Path, kind: str, params: Mapping[str, Any]) -> None:
    """Create `out_dir` for a `kind` run, or check that an existing run there has the same settings.

    Raises:
        ConfigError: the folder holds another kind of run, or one made under other settings.
    """
    out_dir.mkdir(parents=True, exist_ok=True)
    wanted = {"kind": kind, "params": json.loads(json.dumps(dict(params)))}
    manifest = out_dir / MANIFEST
    if not manifest.exists():
        if kind != LEGACY_KIND and (out_dir / RECORDS).exists():
            raise ConfigError(
                f"{out_dir} holds QA records from an older run, not a {kind} run.",
                "Choose another output folder (run name).",
            )
        manifest.write_text(json.dumps(wanted, indent=1), encoding="utf-8")
        return
    found = json.loads(manifest.read_text(encoding="utf-8"))
    if found.get("kind") != kind:
        raise ConfigError(
            f"{out_dir} holds a {found.get('kind')} run, not a {kind} run.",
            "Choose another output folder (run name).",
        )
    old, new = found.get("params", {}), wanted["params"]
    changed = sorted(k for k in old.keys() | new.keys() if old.get(k) != new.get(k))
    if changed:
        details = ", ".join(f"{k}: {old.get(k)!r} then, {new.get(k)!r} now" for k in changed)
        raise ConfigError(
            f"The run in {out_dir} was made under other settings ({details}); resuming would mix them.",
            "Run again with the same settings, or choose another output folder (run name).",
        )


def run_kind(out_dir: Path) -> str | None:
    """The kind of run in `out_dir`, or None when it holds no run."""
    manifest = out_dir / MANIFEST
    if manifest.exists():
        try:
            return json.loads(manifest.read_text(encoding="utf-8")).get("kind")
        except ValueError:
            return None
    return LEGACY_KIND if (out_dir / RECORDS).exists() else None


def list_runs(root: Path, kind: str) -> list[str]:
    """Names of the run folders under `root` holding a `kind` run, sorted."""
    if not root.exists():
        return []
    return sorted(p.name for p in root.iterdir() if p.is_dir() and run_kind(p) == kind)
