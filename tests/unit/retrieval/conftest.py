"""Helpers for retrieval tests: small documents, hand-built trees and hand-set vectors."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from backend.ingest.build import build_document
from backend.ingest.document import Document
from backend.ingest.markdown_loader import load_markdown
from backend.retrieval.discourse_tree import DiscourseTree, TreeDraft
from backend.retrieval.selection import IndexedTree


def make_doc(markdown: str, doc_id: str = "doc1") -> Document:
    """A real ingested document (real segmentation); token counts are whitespace words."""
    data = markdown.encode()
    return build_document(
        load_markdown(data, "t.md"),
        doc_id=doc_id,
        name="t.md",
        size_bytes=len(data),
        count_tokens_many=lambda texts: [len(t.split()) for t in texts],
    )


def leaves_tree(
    texts: Sequence[str], joins: Sequence[tuple[int, ...]] = (), tree_id: str = "t"
) -> DiscourseTree:
    """Leaves with the given texts (fake offsets), then internal nodes joining the listed children."""
    draft = TreeDraft()
    offset = 0
    for text in texts:
        draft.leaf(text, offset, offset + len(text), "sentence")
        offset += len(text) + 1
    for children in joins:
        draft.join(children, "paragraph", "elaboration", "NS" if len(children) == 2 else None)
    return draft.finish(tree_id, "doc1", "disretrieval", "hand-built", {})


def with_scores(tree: DiscourseTree, scores: Sequence[float]) -> IndexedTree:
    """Vectors whose cosine with the query [1, 0] is exactly the given score."""
    scores = np.asarray(scores, dtype=np.float32)
    vectors = np.stack([scores, np.sqrt(np.clip(1 - scores**2, 0, None))], axis=1).astype(np.float32)
    return IndexedTree(tree, vectors)


QUERY = np.asarray([1.0, 0.0], dtype=np.float32)
