"""One question against the retrieval trees of some documents, for any of the five tree methods.

Shared by the answering methods, the Explore page and the benchmark, so all three select the same
evidence: get (or build) each document's tree, embed the question once, select within the word
budget with the method's own strategy, and return passages in document order plus the record
of the nodes that scored highest.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from backend.ingest.document import Document
from backend.progress import ProgressFn, no_progress
from backend.retrieval.dual_selection import dual_select
from backend.retrieval.evidence_spans import selection_passages
from backend.retrieval.flat_baselines import flat_select
from backend.retrieval.node_text import Summariser
from backend.retrieval.raptor import collapsed_select
from backend.retrieval.search import Passage
from backend.retrieval.selection import IndexedTree, Selection
from backend.retrieval.selection_record import SelectionRecord, TreeUsed, make_record
from backend.retrieval.tree_index import BuildReport, TreeIndex


def select(method: str, forest: Sequence[IndexedTree], query: np.ndarray, budget: int, k: int) -> Selection:
    """The method's selection strategy: dual selection, collapsed-tree search, or top units."""
    if method in ("disretrieval", "bisection"):
        return dual_select(forest, query, budget, k)
    if method == "raptor":
        return collapsed_select(forest, query, budget)
    return flat_select(forest, query, budget)


@dataclass
class TreeRetrieval:
    forest: list[IndexedTree]
    docs: list[Document]
    selection: Selection
    passages: list[Passage]
    record: SelectionRecord
    builds: list[BuildReport] = field(default_factory=list)
    build_s: float = 0.0
    select_s: float = 0.0


def build_forest(
    docs: Sequence[Document],
    method: str,
    index: TreeIndex,
    summariser: Summariser | None,
    progress: ProgressFn = no_progress,
) -> tuple[list[IndexedTree], list[BuildReport]]:
    """Each document's indexed tree, built on first use and cached."""
    forest, builds = [], []
    for position, doc in enumerate(docs, start=1):
        progress(f"tree {position}/{len(docs)}: {doc.name}", 0, 1)
        item, report = index.get(doc, method, summariser, progress)
        forest.append(item)
        builds.append(report)
    return forest, builds


def tree_retrieve(
    question: str,
    docs: Sequence[Document],
    method: str,
    index: TreeIndex,
    summariser: Summariser | None,
    structure_reason: str,
    progress: ProgressFn = no_progress,
) -> TreeRetrieval:
    settings = index.settings
    started = time.perf_counter()
    forest, builds = build_forest(docs, method, index, summariser, progress)
    build_s = time.perf_counter() - started
    started = time.perf_counter()
    query = index.embedder.encode([question])[0]
    k = settings.disr_subtree_k
    selection = select(method, forest, query, settings.disr_word_budget, k)
    passages = selection_passages(forest, docs, selection)
    used = [
        TreeUsed(
            item.tree.tree_id,
            doc.id,
            doc.name,
            method,
            item.tree.structure_producer,
            item.tree.producers(),
            item.tree.metadata.get("summariser"),
            item.tree.metadata.get("tau"),
            len(item.tree.nodes),
            not report.cached,
        )
        for item, doc, report in zip(forest, docs, builds, strict=True)
    ]
    uses_k = method in ("disretrieval", "bisection")
    record = make_record(method, forest, used, selection, k if uses_k else None, structure_reason)
    select_s = time.perf_counter() - started
    return TreeRetrieval(list(forest), list(docs), selection, passages, record, builds, build_s, select_s)
