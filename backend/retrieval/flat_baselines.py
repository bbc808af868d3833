"""The flat baselines of the DISRetrieval paper as leaf-only forests.

flatten-chunk: chunks of at most 100 words on sentence boundaries (inside one paragraph);
flatten-sentence: one unit per sentence. Both are retrieved by score until the word budget,
which is dual selection over a forest with no internal node.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from backend.ingest.document import Document
from backend.retrieval.discourse_tree import DiscourseTree, TreeDraft
from backend.retrieval.doc_units import CHUNK_WORDS, sentence_units, word_chunks
from backend.retrieval.dual_selection import dual_select
from backend.retrieval.selection import IndexedTree, Selection

FLAT_CHUNK_PRODUCER = f"flat: chunks of at most {CHUNK_WORDS} words on sentence boundaries"
FLAT_SENTENCE_PRODUCER = "flat: one unit per sentence"


def build_flat_chunks(doc: Document, tree_id: str) -> DiscourseTree:
    draft = TreeDraft()
    for unit in word_chunks(doc):
        draft.leaf(unit.text, unit.start, unit.end, "chunk")
    return draft.finish(tree_id, doc.id, "flatten_chunk", FLAT_CHUNK_PRODUCER, {"max_words": CHUNK_WORDS})


def build_flat_sentences(doc: Document, tree_id: str) -> DiscourseTree:
    draft = TreeDraft()
    for unit in sentence_units(doc):
        draft.leaf(unit.text, unit.start, unit.end, "sentence", unit.sentence_ids[0])
    return draft.finish(tree_id, doc.id, "flatten_sentence", FLAT_SENTENCE_PRODUCER, {})


def flat_select(forest: Sequence[IndexedTree], query: np.ndarray, budget_words: int) -> Selection:
    """The best-scoring units until the budget (the last one cut to fit)."""
    return dual_select(forest, query, budget_words, k=1)
