"""Ingestion into a real Chroma (embedded and server) with the real MiniLM embedder."""

from __future__ import annotations

import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor

import pytest

from backend.config import Settings
from backend.errors import BadDocumentError, StoreMismatchError
from backend.indexer import Indexer, IndexReport
from backend.library import Library
from backend.retrieval.embedder import get_embedder
from backend.retrieval.search import retrieve_chunks
from backend.retrieval.store import VectorStore

pytestmark = pytest.mark.integration


def _document(topic: str) -> bytes:
    """A small Markdown report; the random tag makes its content hash unique per test."""
    return (
        f"# Notes on {topic}\n\nTag {uuid.uuid4().hex}.\n\n## Findings\n\n"
        f"The {topic} budget rose by 12 percent in 2024. However, staffing fell because two teams merged.\n\n"
        f"## Outlook\n\nIf funding holds, the {topic} programme will expand to three cities.\n"
    ).encode()


def _parts(settings: Settings) -> tuple[Indexer, VectorStore, Library]:
    embedder = get_embedder(settings.embedding_model)
    store = VectorStore(settings, embedder.name, embedder.dimension)
    library = Library(settings.data_dir)
    return Indexer(settings, embedder, store, library), store, library


def test_index_query_delete(store_settings: Settings) -> None:
    indexer, store, library = _parts(store_settings)
    report = indexer.index_file(_document("harbour"), "harbour.md")
    doc = report.document
    assert report.status == "added" and doc.id in library
    assert {"read", "segment", "embed", "store"} <= set(report.seconds)
    passages = retrieve_chunks(
        "Why did staffing fall?",
        embedder=indexer._embedder,
        store=store,
        library=library,
        k=3,
        doc_ids=[doc.id],
    )
    assert passages and passages[0].doc_id == doc.id
    assert "staffing fell" in " ".join(p.text for p in passages)
    indexer.delete(doc.id)
    assert doc.id not in library
    assert doc.id not in store.document_ids()


def test_identical_upload_does_no_work_twice(store_settings: Settings) -> None:
    indexer, _store, _ = _parts(store_settings)
    data = _document("library")
    first = indexer.index_file(data, "a.md")
    calls = []
    indexer._embedder.encode = lambda *a, **k: calls.append(a)  # type: ignore[method-assign]
    try:
        second = indexer.index_file(data, "renamed.md")
    finally:
        del indexer._embedder.encode
    assert second.status == "unchanged" and second.doc_id == first.doc_id and calls == []
    assert second.name == "a.md"
    indexer.delete(first.doc_id)


def test_embedded_store_survives_a_restart(settings: Settings) -> None:
    indexer, _, _ = _parts(settings)
    doc = indexer.index_file(_document("ferry"), "ferry.md").document
    _, reopened, library = _parts(settings)
    assert doc.id in reopened.document_ids() and doc.id in library
    assert reopened.count() == len(doc.chunks)


def test_crash_before_commit_leaves_nothing_visible_and_is_pruned(settings: Settings) -> None:
    indexer, store, library = _parts(settings)
    original_add = library.add
    library.add = lambda doc: (_ for _ in ()).throw(KeyboardInterrupt())  # type: ignore[method-assign]
    with pytest.raises(KeyboardInterrupt):
        indexer.index_file(_document("tram"), "tram.md")
    library.add = original_add  # type: ignore[method-assign]
    assert library.ids() == [] and store.count() > 0
    assert indexer.prune_orphans() == 1 and store.count() == 0


def test_other_embedder_in_same_collection_is_refused(settings: Settings) -> None:
    _parts(settings)
    with pytest.raises(StoreMismatchError, match="Re-index"):
        VectorStore(settings, "some-other-model", 384)


def test_bad_upload_is_explained_and_leaves_library_unchanged(settings: Settings) -> None:
    indexer, store, library = _parts(settings)
    with pytest.raises(BadDocumentError):
        indexer.index_file(b"%PDF-1.7 truncated garbage", "broken.pdf")
    with pytest.raises(BadDocumentError):
        indexer.index_file(b"", "empty.txt")
    assert library.ids() == [] and store.count() == 0


def test_retrieval_reuses_stored_sentence_vectors(store_settings: Settings) -> None:
    """Discourse producers embed the retrieved sentences again; they must find them cached."""
    indexer, store, library = _parts(store_settings)
    doc = indexer.index_file(_document("ferry"), "ferry.md").document
    embedder = get_embedder()
    assert embedder is indexer._embedder, "get_embedder() and get_embedder(name) share one model"
    stored = store.vectors([s.id for s in doc.sentences])
    assert set(stored) == {s.id for s in doc.sentences}
    embedder._cache.clear()
    passages = retrieve_chunks(
        "Why did staffing fall?", embedder=embedder, store=store, library=library, k=2, doc_ids=[doc.id]
    )
    read = {i for p in passages for c in doc.chunks if c.id == p.chunk_id for i in c.sentence_ids}
    assert read
    for sentence in doc.sentences:
        assert (embedder._key(doc.sentence_text(sentence)) in embedder._cache) == (sentence.id in read)
    first = next(s for s in doc.sentences if s.id in read)
    again = embedder.encode([doc.sentence_text(first)])[0]
    assert float(again @ stored[first.id]) > 0.999


def test_two_sessions_uploading_the_same_bytes_take_turns(settings: Settings) -> None:
    """The second waits on the document's lock, then finds the first one's entry: no work twice."""
    indexer, store, library = _parts(settings)
    data = _document("tram")
    encode = indexer._embedder.encode
    calls: list[int] = []

    def slow_encode(texts: list[str], **kwargs: object):
        calls.append(len(texts))
        time.sleep(0.2)  # keep the first ingestion busy while the second one arrives
        return encode(texts, **kwargs)

    start = threading.Barrier(2)

    def ingest(name: str) -> IndexReport:
        start.wait()
        return indexer.index_file(data, name)

    indexer._embedder.encode = slow_encode  # type: ignore[method-assign]
    try:
        with ThreadPoolExecutor(max_workers=2) as pool:
            reports = list(pool.map(ingest, ["a.md", "b.md"]))
    finally:
        del indexer._embedder.encode
    assert sorted(r.status for r in reports) == ["added", "unchanged"]
    doc = next(r.document for r in reports if r.status == "added")
    assert library.ids() == [doc.id]
    assert len(calls) == 2, "chunks and sentences embedded once each"
    assert store.count() == len(doc.chunks)
    assert store.count("sentences") == len(doc.sentences)
