"""Chroma as the vector store: embedded (PersistentClient) by default, a server when configured.

Collections are named by the settings' index fingerprint and record the embedder that filled
them, so vectors from two embedders are never mixed; texts stay in the library, Chroma keeps
vectors plus the metadata needed to find them again.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from backend.config import Settings
from backend.errors import ServerUnreachableError, StoreMismatchError
from backend.ingest.document import Document
from backend.llm.base import ServiceStatus

MAX_BATCH = 5000
KINDS = ("chunks", "sentences", "nodes")
"""nodes: retrieval-tree nodes (DISRetrieval and its baselines), written by retrieval/node_store.py."""


@dataclass(frozen=True)
class StoreHit:
    id: str
    doc_id: str
    score: float
    metadata: dict[str, Any]


def _client(settings: Settings):  # returns a chromadb ClientAPI; typed loosely to keep import lazy
    import chromadb
    from chromadb.config import Settings as ChromaSettings

    chroma_settings = ChromaSettings(anonymized_telemetry=False, allow_reset=False)
    if settings.chroma_host:
        try:
            return chromadb.HttpClient(
                host=settings.chroma_host, port=settings.chroma_port, settings=chroma_settings
            )
        except Exception as exc:  # chromadb raises ValueError/ConnectionError variants here
            raise ServerUnreachableError(
                f"The Chroma server at {settings.chroma_host}:{settings.chroma_port} did not answer ({exc}).",
                "Start it (`chroma run --path DIR --port N`), or clear CHROMA_HOST "
                "to use the embedded store.",
            ) from None
    path = settings.data_dir / "chroma"
    path.mkdir(parents=True, exist_ok=True)
    return chromadb.PersistentClient(path=str(path), settings=chroma_settings)


class VectorStore:
    """Chunk and sentence vectors with document metadata."""

    def __init__(self, settings: Settings, embedder_name: str, dimension: int) -> None:
        self.location = (
            f"chroma server {settings.chroma_host}:{settings.chroma_port}"
            if settings.chroma_host
            else f"embedded chroma in {settings.data_dir / 'chroma'}"
        )
        self._client = _client(settings)
        self._fingerprint = settings.index_fingerprint()
        self._embedder = embedder_name
        self._dimension = dimension
        self._collections = {kind: self._collection(kind) for kind in KINDS}

    def _collection(self, kind: str):
        name = f"{kind}-{self._fingerprint}"
        meta = {"hnsw:space": "cosine", "embedder": self._embedder, "dimension": self._dimension}
        try:
            collection = self._client.get_or_create_collection(name, metadata=meta, embedding_function=None)
        except Exception as exc:
            raise ServerUnreachableError(f"Cannot open the {self.location}: {exc}.", "") from None
        stored = collection.metadata or {}
        if stored.get("embedder") != self._embedder or stored.get("dimension") != self._dimension:
            raise StoreMismatchError(
                f"The collection {name} was built with {stored.get('embedder')!r} "
                f"({stored.get('dimension')} dims), not {self._embedder!r}.",
                "Re-index the library from the Library page, or switch back to that embedder.",
            )
        return collection

    def add_document(self, doc: Document, chunk_vectors: np.ndarray, sentence_vectors: np.ndarray) -> None:
        """Replace whatever is stored for `doc.id`, so a resumed ingestion never duplicates."""
        self.delete_document(doc.id)
        rows = {
            "chunks": [
                (c.id, {"doc_id": doc.id, "index": c.index, "start": c.start, "end": c.end})
                for c in doc.chunks
            ],
            "sentences": [
                (
                    s.id,
                    {
                        "doc_id": doc.id,
                        "index": s.index,
                        "start": s.start,
                        "end": s.end,
                        "paragraph_id": s.paragraph_id,
                    },
                )
                for s in doc.sentences
            ],
        }
        vectors = {"chunks": chunk_vectors, "sentences": sentence_vectors}
        for kind, items in rows.items():
            for begin in range(0, len(items), MAX_BATCH):
                batch = items[begin : begin + MAX_BATCH]
                self._collections[kind].add(
                    ids=[item_id for item_id, _ in batch],
                    metadatas=[meta for _, meta in batch],
                    embeddings=vectors[kind][begin : begin + len(batch)],
                )

    def collection(self, kind: str):
        """The Chroma collection for `kind` (one of KINDS), for stores of other row types."""
        return self._collections[kind]

    def delete_document(self, doc_id: str) -> None:
        for collection in self._collections.values():
            collection.delete(where={"doc_id": doc_id})

    def document_ids(self) -> set[str]:
        found: set[str] = set()
        for collection in self._collections.values():
            metas = collection.get(include=["metadatas"])["metadatas"] or []
            found.update(str(m["doc_id"]) for m in metas)
        return found

    def vectors(self, ids: Sequence[str], kind: str = "sentences") -> dict[str, np.ndarray]:
        """Stored vectors by id; ids not in the store are absent from the result."""
        if not ids:
            return {}
        result = self._collections[kind].get(ids=list(ids), include=["embeddings"])
        return {
            i: np.asarray(v, np.float32) for i, v in zip(result["ids"], result["embeddings"], strict=True)
        }

    def count(self, kind: str = "chunks") -> int:
        return self._collections[kind].count()

    def query(
        self, vector: np.ndarray, k: int, kind: str = "chunks", doc_ids: Sequence[str] | None = None
    ) -> list[StoreHit]:
        """Nearest `k` by cosine, optionally within some documents; score = cosine similarity."""
        collection = self._collections[kind]
        total = collection.count()
        if total == 0 or k <= 0 or (doc_ids is not None and not doc_ids):
            return []
        where = None
        if doc_ids is not None:
            where = {"doc_id": doc_ids[0]} if len(doc_ids) == 1 else {"doc_id": {"$in": list(doc_ids)}}
        result = collection.query(
            query_embeddings=[vector],
            n_results=min(k, total),
            where=where,
            include=["metadatas", "distances"],
        )
        return [
            StoreHit(id=hit_id, doc_id=str(meta["doc_id"]), score=1.0 - float(dist), metadata=dict(meta))
            for hit_id, meta, dist in zip(
                result["ids"][0], result["metadatas"][0], result["distances"][0], strict=True
            )
        ]

    def status(self) -> ServiceStatus:
        try:
            self._client.heartbeat()
            return ServiceStatus(
                self.location, True, f"{self.count()} chunks, {self.count('sentences')} sentences"
            )
        except Exception as exc:
            return ServiceStatus(self.location, False, f"not answering: {exc}")
