"""Ingestions that started but never committed, kept so a killed run can resume, not restart.

An ingestion writes its upload and a small journal entry first, and its vectors as soon as
they are computed; the library entry is written last and then the journal entry is removed.
After a crash the journal lists what to resume, and the saved vectors mean nothing is
embedded twice. Files are written atomically, so a kill mid-write leaves the old state.
"""

from __future__ import annotations

import json
import os
import threading
from dataclasses import dataclass
from pathlib import Path

import numpy as np


@dataclass(frozen=True)
class PendingIngestion:
    doc_id: str
    name: str
    fingerprint: str


def _atomic_write(path: Path, write) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    with tmp.open("wb") as handle:
        write(handle)
    tmp.replace(path)


class PendingJournal:
    """`<data_dir>/pending`: one JSON entry per unfinished ingestion, plus its vectors once embedded."""

    def __init__(self, data_dir: Path) -> None:
        self._dir = data_dir / "pending"
        self._dir.mkdir(parents=True, exist_ok=True)

    def _entry(self, doc_id: str) -> Path:
        if not doc_id.isalnum():
            raise KeyError(doc_id)
        return self._dir / f"{doc_id}.json"

    def _vectors(self, doc_id: str, fingerprint: str) -> Path:
        if not (doc_id.isalnum() and fingerprint.isalnum()):
            raise KeyError(doc_id)
        return self._dir / f"{doc_id}-{fingerprint}.npz"

    def start(self, doc_id: str, name: str, fingerprint: str) -> None:
        body = json.dumps({"name": name, "fingerprint": fingerprint}).encode()
        _atomic_write(self._entry(doc_id), lambda handle: handle.write(body))

    def save_vectors(self, doc_id: str, fingerprint: str, chunks: np.ndarray, sentences: np.ndarray) -> None:
        _atomic_write(
            self._vectors(doc_id, fingerprint),
            lambda handle: np.savez(handle, chunks=chunks, sentences=sentences),
        )

    def vectors(
        self, doc_id: str, fingerprint: str, n_chunks: int, n_sentences: int
    ) -> tuple[np.ndarray, np.ndarray] | None:
        """Saved vectors when they match the document's shape; a damaged or stale file is ignored."""
        path = self._vectors(doc_id, fingerprint)
        try:
            with np.load(path) as saved:
                chunks, sentences = saved["chunks"], saved["sentences"]
        except (OSError, ValueError, KeyError):
            return None
        if len(chunks) != n_chunks or len(sentences) != n_sentences:
            return None
        return chunks, sentences

    def finish(self, doc_id: str) -> None:
        self._entry(doc_id).unlink(missing_ok=True)
        for path in self._dir.glob(f"{doc_id}-*.npz"):
            path.unlink(missing_ok=True)

    def entries(self) -> list[PendingIngestion]:
        found = []
        for path in sorted(self._dir.glob("*.json")):
            try:
                data = json.loads(path.read_text(encoding="utf-8"))
                found.append(PendingIngestion(path.stem, str(data["name"]), str(data["fingerprint"])))
            except (OSError, ValueError, KeyError):
                path.unlink(missing_ok=True)  # a journal entry that cannot be read cannot be resumed
        return found
