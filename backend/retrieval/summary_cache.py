"""Node summaries on disk, keyed by the pieces' content hash, the model and the prompt version.

Summaries do not depend on the question or the document they sit in, so identical children
(a re-uploaded document, Bisection and DISRetrieval sharing a node) are summarised once per
model. A rejected reply is kept too, with its reason, so a model that cannot summarise a node
is not asked again; failed requests (server down) are not cached. One append-only JSON-lines
file per model; a torn last line is skipped on load.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from backend.retrieval.summary_prompt import PROMPT_VERSION


@dataclass(frozen=True)
class CachedSummary:
    text: str | None
    """None when the model's reply was rejected; `reason` says why."""
    reason: str = ""


def summary_key(model: str, pieces: Sequence[str]) -> str:
    joined = "\x1f".join([PROMPT_VERSION, model, *pieces])
    return hashlib.sha256(joined.encode("utf-8", "surrogatepass")).hexdigest()[:40]


def _file_name(model: str) -> str:
    slug = re.sub(r"[^A-Za-z0-9._-]+", "-", model).strip("-")[:48]
    return f"{slug}-{hashlib.sha256(model.encode()).hexdigest()[:8]}.jsonl"


class SummaryCache:
    """`<data_dir>/disretrieval/summaries/<model>.jsonl`, loaded lazily, appended under a lock."""

    def __init__(self, data_dir: Path, model: str) -> None:
        self.model = model
        self.path = Path(data_dir) / "disretrieval" / "summaries" / _file_name(model)
        self._entries: dict[str, CachedSummary] | None = None
        self._lock = threading.Lock()

    def _load(self) -> dict[str, CachedSummary]:
        if self._entries is None:
            self._entries = {}
            try:
                lines = self.path.read_text(encoding="utf-8").splitlines()
            except OSError:
                lines = []
            for line in lines:
                try:
                    row = json.loads(line)
                    self._entries[str(row["key"])] = CachedSummary(
                        row.get("text"), str(row.get("reason", ""))
                    )
                except (ValueError, KeyError, TypeError):
                    continue
        return self._entries

    def get(self, pieces: Sequence[str]) -> CachedSummary | None:
        with self._lock:
            return self._load().get(summary_key(self.model, pieces))

    def put(self, pieces: Sequence[str], entry: CachedSummary) -> None:
        key = summary_key(self.model, pieces)
        line = json.dumps({"key": key, "text": entry.text, "reason": entry.reason}, ensure_ascii=False)
        with self._lock:
            self._load()[key] = entry
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self.path.open("a", encoding="utf-8") as handle:
                handle.write(line + "\n")
