"""Turns an uploaded file into a library document: load, segment, embed, store, commit.

The content hash is the document id, so identical bytes are recognised before any work; the
library entry is written last, so a crash at any earlier step leaves nothing visible. The
pending journal keeps the upload and, once computed, the vectors, so `resume` finishes a
killed ingestion without embedding again (the store replaces partial rows for that id).
A process-wide lock per document id makes two sessions uploading the same bytes take turns:
the second finds the first one's entry and does no work.
"""

from __future__ import annotations

import hashlib
import threading
import time
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Literal

from backend.config import Settings
from backend.errors import BadDocumentError
from backend.ingest.build import build_document
from backend.ingest.document import Document
from backend.ingest.loaders import load_file
from backend.library import Library
from backend.pending import PendingIngestion, PendingJournal
from backend.progress import ProgressFn, no_progress
from backend.retrieval.embedder import Embedder
from backend.retrieval.store import VectorStore
from backend.retrieval.tree_files import TreeFiles


@dataclass
class IndexReport:
    """What one upload did, for the progress panel and the ingestion benchmark."""

    doc_id: str
    name: str
    status: Literal["added", "unchanged"]
    seconds: dict[str, float] = field(default_factory=dict)
    document: Document | None = None


def content_id(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:20]


_DOC_LOCKS: weakref.WeakValueDictionary[str, threading.Lock] = weakref.WeakValueDictionary()
_DOC_LOCKS_GUARD = threading.Lock()


@contextmanager
def document_lock(doc_id: str) -> Iterator[None]:
    """Serialise work on one document across sessions; weak values drop locks nobody holds."""
    with _DOC_LOCKS_GUARD:
        lock = _DOC_LOCKS.get(doc_id)
        if lock is None:
            lock = _DOC_LOCKS[doc_id] = threading.Lock()
    with lock:
        yield


class Indexer:
    def __init__(self, settings: Settings, embedder: Embedder, store: VectorStore, library: Library) -> None:
        self._settings = settings
        self._embedder = embedder
        self._store = store
        self._library = library
        self._journal = PendingJournal(settings.data_dir)

    def index_file(self, data: bytes, name: str, progress: ProgressFn = no_progress) -> IndexReport:
        """Index one upload; raises BadDocumentError with a user-facing message on bad input."""
        limit = int(self._settings.max_upload_mb * 1024 * 1024)
        doc_id = content_id(data)
        fingerprint = self._settings.index_fingerprint()
        with document_lock(doc_id):
            if doc_id in self._library:
                existing = self._library.get(doc_id)
                if existing.index_fingerprint == fingerprint:
                    return IndexReport(doc_id, existing.name, "unchanged", document=existing)
            seconds: dict[str, float] = {}
            started = time.perf_counter()
            progress("read", 0, 1)
            loaded = load_file(data, name, max_bytes=limit)
            seconds["read"] = time.perf_counter() - started
            return self._index_loaded(loaded, data, doc_id, name, seconds, progress)

    def reindex(self, doc_id: str, progress: ProgressFn = no_progress) -> IndexReport:
        """Rebuild a document from its stored upload under the current settings."""
        with document_lock(doc_id):
            doc = self._library.get(doc_id)
            data = self._library.upload(doc_id)
            started = time.perf_counter()
            loaded = load_file(data, doc.name, max_bytes=max(len(data), 1))
            return self._index_loaded(
                loaded, data, doc_id, doc.name, {"read": time.perf_counter() - started}, progress
            )

    def _index_loaded(
        self, loaded, data: bytes, doc_id: str, name: str, seconds: dict[str, float], progress: ProgressFn
    ) -> IndexReport:
        started = time.perf_counter()
        progress("segment", 0, 1)
        doc = build_document(
            loaded,
            doc_id=doc_id,
            name=name,
            size_bytes=len(data),
            count_tokens_many=self._embedder.count_tokens_many,
            chunk_tokens=self._settings.chunk_tokens,
            index_fingerprint=self._settings.index_fingerprint(),
        )
        if not doc.chunks:
            raise BadDocumentError(
                f"'{name}' contains no sentences to index.", "Upload a file with text in it."
            )
        seconds["segment"] = time.perf_counter() - started
        progress("segment", 1, 1)

        fingerprint = doc.index_fingerprint
        self._library.save_upload(doc_id, data)
        self._journal.start(doc_id, name, fingerprint)
        started = time.perf_counter()
        saved = self._journal.vectors(doc_id, fingerprint, len(doc.chunks), len(doc.sentences))
        if saved is None:
            chunk_vectors = self._embedder.encode([doc.chunk_text(c) for c in doc.chunks], progress=progress)
            sentence_vectors = self._embedder.encode(
                [doc.sentence_text(s) for s in doc.sentences], progress=progress
            )
            self._journal.save_vectors(doc_id, fingerprint, chunk_vectors, sentence_vectors)
        else:
            chunk_vectors, sentence_vectors = saved
            progress("embed", len(doc.sentences), len(doc.sentences))
        seconds["embed"] = time.perf_counter() - started

        started = time.perf_counter()
        progress("store", 0, 2)
        self._store.add_document(doc, chunk_vectors, sentence_vectors)
        progress("store", 1, 2)  # vectors written, entry not yet: the durability test kills here
        self._library.add(doc)
        self._journal.finish(doc_id)
        seconds["store"] = time.perf_counter() - started
        progress("store", 2, 2)
        return IndexReport(doc_id, name, "added", seconds=seconds, document=doc)

    def pending(self) -> list[PendingIngestion]:
        """Ingestions that were interrupted before their commit and can be resumed."""
        return [p for p in self._journal.entries() if p.doc_id not in self._library]

    def resume(self, doc_id: str, progress: ProgressFn = no_progress) -> IndexReport:
        """Finish an interrupted ingestion from its saved upload (and vectors, when they were saved)."""
        entry = next((p for p in self._journal.entries() if p.doc_id == doc_id), None)
        if entry is None:
            raise KeyError(doc_id)
        return self.index_file(self._library.upload(doc_id), entry.name, progress)

    def discard(self, doc_id: str) -> None:
        """Forget an interrupted ingestion and its saved upload."""
        with document_lock(doc_id):
            self._journal.finish(doc_id)
            self._library.remove(doc_id)
            self._store.delete_document(doc_id)

    def delete(self, doc_id: str) -> None:
        """Remove a document and everything derived from it."""
        with document_lock(doc_id):
            self._library.remove(doc_id)
            self._store.delete_document(doc_id)
            TreeFiles(self._settings.data_dir).remove_document(doc_id)

    def prune_orphans(self) -> int:
        """Drop store rows whose document never committed (an ingestion killed midway).

        Each id is checked again under its lock: one another session is ingesting right now has
        rows but no entry yet, and commits before the lock is free.
        """
        pruned = 0
        for doc_id in self._store.document_ids() - set(self._library.ids()):
            with document_lock(doc_id):
                if doc_id not in self._library:
                    self._store.delete_document(doc_id)
                    pruned += 1
        return pruned
