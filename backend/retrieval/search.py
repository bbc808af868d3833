"""Top-k chunk retrieval: vectors from Chroma, texts and places from the library."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from backend.library import Library
from backend.retrieval.embedder import Embedder
from backend.retrieval.store import VectorStore


@dataclass(frozen=True)
class Passage:
    """A piece of a document handed to a generator, with where it came from."""

    chunk_id: str
    doc_id: str
    doc_name: str
    text: str
    start: int
    end: int
    pages: tuple[int, ...]
    score: float | None = None

    @property
    def place(self) -> str:
        """Human-readable location: document, pages, characters."""
        pages = ""
        if self.pages:
            first, last = self.pages[0], self.pages[-1]
            pages = f", p. {first}" if first == last else f", pp. {first}-{last}"
        return f"{self.doc_name}{pages}, chars {self.start}-{self.end}"


def retrieve_chunks(
    question: str,
    *,
    embedder: Embedder,
    store: VectorStore,
    library: Library,
    k: int,
    doc_ids: Sequence[str] | None = None,
) -> list[Passage]:
    """The k chunks most similar to the question, best first; rows of deleted documents are skipped."""
    vector = embedder.encode([question])[0]
    passages = []
    sentence_ids: list[str] = []
    texts: dict[str, str] = {}
    for hit in store.query(vector, k, kind="chunks", doc_ids=doc_ids):
        try:
            doc = library.get(hit.doc_id)
        except KeyError:
            continue
        chunk = doc.chunks[int(hit.metadata["index"])]
        passages.append(
            Passage(
                chunk_id=chunk.id,
                doc_id=doc.id,
                doc_name=doc.name,
                text=doc.chunk_text(chunk),
                start=chunk.start,
                end=chunk.end,
                pages=chunk.pages,
                score=hit.score,
            )
        )
        wanted = set(chunk.sentence_ids)
        sentence_ids.extend(chunk.sentence_ids)
        texts.update({s.id: doc.sentence_text(s) for s in doc.sentences if s.id in wanted})
    _reuse_sentence_vectors(embedder, store, [texts[i] for i in sentence_ids], sentence_ids)
    return passages


def _reuse_sentence_vectors(embedder: Embedder, store: VectorStore, texts: list[str], ids: list[str]) -> None:
    """Put the retrieved chunks' stored sentence vectors in the embedder's cache.

    Discourse producers downstream (the trained parser, the relation classifier) embed these
    sentences again; with the vectors from ingestion they start warm instead of re-embedding.
    """
    found = store.vectors(ids)
    known = [(text, found[i]) for text, i in zip(texts, ids, strict=True) if i in found]
    if known:
        embedder.remember([t for t, _ in known], np.stack([v for _, v in known]))
