"""Get or build a document's indexed retrieval tree for one method: memory, then disk, then build.

Building: shape (the trained parser, bisection, clustering or flat units), node texts (merge,
or summaries under the tau rule when a summariser is given), node vectors, then the Chroma rows
and the JSON file. Sentence vectors stored at ingestion seed the embedder's cache, so sentences
are never embedded twice; an enhanced tree reuses the shape of the merge-only one when it was
built before ("merge-only now, enhance later"). A tree whose summaries failed (server down) is
used for the question at hand but stored nowhere, so the next run builds it again.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from backend.config import Settings
from backend.discourse.parser import SentenceRSTParser
from backend.errors import ConfigError
from backend.ingest.document import Document
from backend.progress import ProgressFn, no_progress
from backend.retrieval.discourse_tree import DiscourseTree
from backend.retrieval.embedder import Embedder
from backend.retrieval.flat_baselines import build_flat_chunks, build_flat_sentences
from backend.retrieval.node_store import NodeStore
from backend.retrieval.node_text import EnhanceReport, Summariser, enhance
from backend.retrieval.node_vectors import node_vectors
from backend.retrieval.raptor import build_raptor
from backend.retrieval.selection import IndexedTree
from backend.retrieval.store import VectorStore
from backend.retrieval.tree_builders import build_bisection_structure, build_discourse_structure
from backend.retrieval.tree_files import TreeFiles, TreeKey

TREE_METHODS = ("disretrieval", "bisection", "raptor", "flatten_chunk", "flatten_sentence")
ENHANCED = frozenset({"disretrieval", "bisection", "raptor"})
"""Methods whose internal node texts follow the tau rule (flat methods have no internal nodes)."""
_MEMORY_LIMIT = 48


@dataclass
class BuildReport:
    tree_id: str
    method: str
    cached: bool
    nodes: int
    seconds: dict[str, float] = field(default_factory=dict)
    enhance: EnhanceReport | None = None

    @property
    def total_s(self) -> float:
        return sum(self.seconds.values())


@lru_cache(maxsize=1)
def shared_parser() -> SentenceRSTParser:
    """The trained sentence-level parser, loaded once per process."""
    return SentenceRSTParser.load_default()


_MEMORY: OrderedDict[tuple[str, str], IndexedTree] = OrderedDict()
_MEMORY_LOCK = threading.Lock()


def _remember(key: tuple[str, str], item: IndexedTree) -> None:
    with _MEMORY_LOCK:
        _MEMORY[key] = item
        _MEMORY.move_to_end(key)
        while len(_MEMORY) > _MEMORY_LIMIT:
            _MEMORY.popitem(last=False)


def _recall(key: tuple[str, str]) -> IndexedTree | None:
    with _MEMORY_LOCK:
        item = _MEMORY.get(key)
        if item is not None:
            _MEMORY.move_to_end(key)
        return item


class TreeIndex:
    """The trees of one studio (settings, embedder, store)."""

    def __init__(self, settings: Settings, embedder: Embedder, store: VectorStore) -> None:
        self.settings = settings
        self.embedder = embedder
        self.store = store
        self.nodes = NodeStore(store)
        self.files = TreeFiles(settings.data_dir)

    def key(self, method: str, summariser: Summariser | None = None) -> TreeKey:
        if method not in TREE_METHODS:
            raise ConfigError(
                f"Unknown tree method {method!r}.", f"Choose one of: {', '.join(TREE_METHODS)}."
            )
        parser = shared_parser().producer if method == "disretrieval" else None
        if method not in ENHANCED or summariser is None:
            return TreeKey(method, self.embedder.name, parser)
        return TreeKey(method, self.embedder.name, parser, summariser.label, self.settings.disr_tau_words)

    def cached(
        self, doc: Document, method: str, summariser: Summariser | None = None
    ) -> DiscourseTree | None:
        """The tree already built for these settings, if any (no building)."""
        tree_id = self.key(method, summariser).tree_id(doc)
        item = _recall((self.store.location, tree_id))
        return item.tree if item is not None else self.files.get(doc.id, tree_id)

    def get(
        self,
        doc: Document,
        method: str,
        summariser: Summariser | None = None,
        progress: ProgressFn = no_progress,
    ) -> tuple[IndexedTree, BuildReport]:
        tree_id = self.key(method, summariser).tree_id(doc)
        memory_key = (self.store.location, tree_id)
        item = _recall(memory_key)
        if item is not None and self.files.exists(doc.id, tree_id):  # gone when the document was deleted
            return item, BuildReport(tree_id, method, True, len(item.tree.nodes))
        started = time.perf_counter()
        tree = self.files.get(doc.id, tree_id)
        vectors = self.nodes.load_vectors(tree) if tree is not None else None
        if tree is not None and vectors is not None:
            item = IndexedTree(tree, vectors)
            report = BuildReport(
                tree_id, method, True, len(tree.nodes), {"load": time.perf_counter() - started}
            )
        else:
            item, report = self._build(doc, method, tree_id, summariser, progress)
            if report.enhance is not None and report.enhance.failed:
                return item, report
            started = time.perf_counter()
            progress("store", 0, 1)
            self.nodes.add_tree(item.tree, item.vectors)
            self.files.put(item.tree)
            progress("store", 1, 1)
            report.seconds["store"] = time.perf_counter() - started
        _remember(memory_key, item)
        return item, report

    def _seed_sentence_vectors(self, doc: Document) -> None:
        """Put the vectors stored at ingestion into the embedder's cache (no re-embedding)."""
        found = self.store.vectors([s.id for s in doc.sentences])
        known = [(doc.sentence_text(s), found[s.id]) for s in doc.sentences if s.id in found]
        if known:
            self.embedder.remember([t for t, _ in known], np.stack([v for _, v in known]))

    def _build(
        self, doc: Document, method: str, tree_id: str, summariser: Summariser | None, progress: ProgressFn
    ) -> tuple[IndexedTree, BuildReport]:
        seconds: dict[str, float] = {}
        started = time.perf_counter()
        self._seed_sentence_vectors(doc)
        tau = self.settings.disr_tau_words
        if method == "raptor":
            progress("cluster layers", 0, 1)
            item, enhanced = build_raptor(
                doc,
                tree_id,
                self._encode(progress),
                self.embedder.max_tokens,
                tau,
                summariser,
                progress=progress,
            )
            seconds["build"] = time.perf_counter() - started
            return item, BuildReport(tree_id, method, False, len(item.tree.nodes), seconds, enhanced)
        progress("shape", 0, 1)
        tree = self._shape(doc, method, summariser)
        seconds["shape"] = time.perf_counter() - started
        report = BuildReport(tree_id, method, False, len(tree.nodes), seconds)
        if summariser is not None and method in ENHANCED:
            started = time.perf_counter()
            tree, report.enhance = enhance(tree, tau, summariser, progress=progress)
            seconds["summarise"] = time.perf_counter() - started
        tree = tree.with_nodes(tree.nodes, tree_id=tree_id)
        started = time.perf_counter()
        vectors = self.node_vectors(tree, progress)
        seconds["embed"] = time.perf_counter() - started
        return IndexedTree(tree, vectors), report

    def node_vectors(self, tree: DiscourseTree, progress: ProgressFn = no_progress) -> np.ndarray:
        """Vectors by the rules of node_vectors.py, for this embedder's window."""
        window = self.embedder.max_tokens - 2  # the encoder adds two special tokens
        return node_vectors(
            tree, self._encode(progress), self.embedder.count_tokens_many, window, self.embedder.dimension
        )

    def _shape(self, doc: Document, method: str, summariser: Summariser | None) -> DiscourseTree:
        """The merge-only tree (from disk when an enhanced tree is asked after a merge-only one)."""
        base_id = self.key(method).tree_id(doc)
        if summariser is not None:
            base = self.files.get(doc.id, base_id)
            if base is not None:
                return base
        if method == "disretrieval":
            return build_discourse_structure(doc, shared_parser(), base_id)
        if method == "bisection":
            return build_bisection_structure(doc, base_id)
        if method == "flatten_chunk":
            return build_flat_chunks(doc, base_id)
        return build_flat_sentences(doc, base_id)

    def _encode(self, progress: ProgressFn):
        def encode(texts: list[str]) -> np.ndarray:
            return self.embedder.encode(texts, progress=progress)

        return encode

    def delete_document(self, doc_id: str) -> None:
        """Forget every tree of `doc_id`: files and memory (the store's rows go with the document)."""
        self.files.remove_document(doc_id)
        with _MEMORY_LOCK:
            for key in [k for k, v in _MEMORY.items() if v.tree.doc_id == doc_id]:
                del _MEMORY[key]
