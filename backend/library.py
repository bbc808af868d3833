"""The document catalogue on disk: the source of truth for what the library holds.

A document is visible only once its JSON is written, and that write is the last step of an
ingestion (temp file, then rename), so an interrupted ingestion never leaves a half document.
Original uploads are kept under their content hash (never the user's file name) for re-indexing.
"""

from __future__ import annotations

import json
import os
import threading
from dataclasses import dataclass
from pathlib import Path

from backend.ingest.document import Document


@dataclass(frozen=True)
class DocumentSummary:
    """What the Library page lists, without loading full texts."""

    id: str
    name: str
    source_type: str
    title: str
    size_bytes: int
    page_count: int | None
    paragraphs: int
    sentences: int
    chunks: int
    words: int
    index_fingerprint: str
    warnings: tuple[str, ...]


def _summary(doc: Document) -> DocumentSummary:
    return DocumentSummary(
        id=doc.id,
        name=doc.name,
        source_type=doc.source_type,
        title=doc.title,
        size_bytes=doc.size_bytes,
        page_count=doc.page_count,
        paragraphs=len(doc.paragraphs),
        sentences=len(doc.sentences),
        chunks=len(doc.chunks),
        words=doc.word_count,
        index_fingerprint=doc.index_fingerprint,
        warnings=tuple(doc.warnings),
    )


def _atomic_write(path: Path, data: bytes) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    tmp.write_bytes(data)
    tmp.replace(path)


class Library:
    """Documents as JSON files in `<data_dir>/library`, uploads in `<data_dir>/uploads`."""

    def __init__(self, data_dir: Path) -> None:
        self._docs_dir = data_dir / "library"
        self._uploads_dir = data_dir / "uploads"
        self._docs_dir.mkdir(parents=True, exist_ok=True)
        self._uploads_dir.mkdir(parents=True, exist_ok=True)
        self._cache: dict[str, tuple[float, Document]] = {}
        self._lock = threading.Lock()

    def _doc_path(self, doc_id: str) -> Path:
        if not doc_id.isalnum():
            raise KeyError(doc_id)
        return self._docs_dir / f"{doc_id}.json"

    def _upload_path(self, doc_id: str) -> Path:
        if not doc_id.isalnum():
            raise KeyError(doc_id)
        return self._uploads_dir / f"{doc_id}.bin"

    def ids(self) -> list[str]:
        return sorted(p.stem for p in self._docs_dir.glob("*.json"))

    def __contains__(self, doc_id: str) -> bool:
        try:
            return self._doc_path(doc_id).is_file()
        except KeyError:
            return False

    def get(self, doc_id: str) -> Document:
        """Load (and memoise by file mtime) one document; KeyError if it is not in the library."""
        path = self._doc_path(doc_id)
        try:
            mtime = path.stat().st_mtime
        except FileNotFoundError:
            raise KeyError(doc_id) from None
        with self._lock:
            cached = self._cache.get(doc_id)
            if cached and cached[0] == mtime:
                return cached[1]
        doc = Document.from_dict(json.loads(path.read_text(encoding="utf-8")))
        with self._lock:
            self._cache[doc_id] = (mtime, doc)
        return doc

    def summaries(self) -> list[DocumentSummary]:
        found = []
        for doc_id in self.ids():
            try:
                found.append(_summary(self.get(doc_id)))
            except (KeyError, ValueError, json.JSONDecodeError):
                continue
        return sorted(found, key=lambda s: s.name.lower())

    def save_upload(self, doc_id: str, data: bytes) -> None:
        path = self._upload_path(doc_id)
        if not path.is_file():
            _atomic_write(path, data)

    def upload(self, doc_id: str) -> bytes:
        return self._upload_path(doc_id).read_bytes()

    def add(self, doc: Document) -> None:
        """The commit point of an ingestion."""
        _atomic_write(self._doc_path(doc.id), json.dumps(doc.to_dict(), ensure_ascii=False).encode("utf-8"))

    def remove(self, doc_id: str) -> None:
        self._doc_path(doc_id).unlink(missing_ok=True)
        self._upload_path(doc_id).unlink(missing_ok=True)
        with self._lock:
            self._cache.pop(doc_id, None)
