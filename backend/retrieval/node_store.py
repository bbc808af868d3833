"""Retrieval-tree node vectors in Chroma, with the tree metadata needed to find and explain them.

Rows live in the store's `nodes` collection (named, like chunks and sentences, by the index
fingerprint), one per node, id `<tree id>:<node index>`, with doc id, tree id, method, level
(depth), parent, leaf span, producer and whether it is ranked (a node too long for the encoder
is stored with a zero vector and not ranked). Because the rows carry `doc_id`, deleting a document
from the store deletes its nodes with its chunks and sentences.
"""

from __future__ import annotations

import numpy as np

from backend.retrieval.discourse_tree import DiscourseTree
from backend.retrieval.store import MAX_BATCH, VectorStore


def node_metadata(tree: DiscourseTree, index: int, ranked: bool) -> dict[str, str | int | bool]:
    node = tree.nodes[index]
    first, last = node.span if node.span is not None else (-1, -1)
    return {
        "doc_id": tree.doc_id,
        "tree_id": tree.tree_id,
        "method": tree.method,
        "node": index,
        "level": node.depth,
        "parent": -1 if node.parent is None else node.parent,
        "leaf_start": first,
        "leaf_end": last,
        "is_leaf": node.is_leaf,
        "ranked": ranked,
        "scope": node.scope,
        "producer": node.producer[:200],
    }


class NodeStore:
    """Adds, loads and deletes the node vectors of whole trees."""

    def __init__(self, store: VectorStore) -> None:
        self._collection = store.collection("nodes")

    def add_tree(self, tree: DiscourseTree, vectors: np.ndarray) -> None:
        """Replace whatever is stored for this tree id."""
        if len(vectors) != len(tree.nodes):
            raise ValueError(f"{len(tree.nodes)} nodes but {len(vectors)} vectors")
        self.delete_tree(tree.tree_id)
        for begin in range(0, len(tree.nodes), MAX_BATCH):
            indices = range(begin, min(begin + MAX_BATCH, len(tree.nodes)))
            self._collection.add(
                ids=[tree.node_id(i) for i in indices],
                metadatas=[node_metadata(tree, i, bool(np.any(vectors[i]))) for i in indices],
                embeddings=vectors[begin : begin + len(indices)],
            )

    def load_vectors(self, tree: DiscourseTree) -> np.ndarray | None:
        """The stored vectors in node order, or None unless every node of `tree` is stored."""
        result = self._collection.get(where={"tree_id": tree.tree_id}, include=["embeddings", "metadatas"])
        metas = result["metadatas"] or []
        if len(metas) != len(tree.nodes):
            return None
        vectors = np.zeros((len(tree.nodes), len(result["embeddings"][0])), np.float32)
        seen = np.zeros(len(tree.nodes), dtype=bool)
        for meta, vector in zip(metas, result["embeddings"], strict=True):
            index = int(meta["node"])
            if not 0 <= index < len(tree.nodes):
                return None
            vectors[index] = vector
            seen[index] = True
        return vectors if seen.all() else None

    def delete_tree(self, tree_id: str) -> None:
        self._collection.delete(where={"tree_id": tree_id})

    def count(self, doc_id: str | None = None) -> int:
        if doc_id is None:
            return self._collection.count()
        return len(self._collection.get(where={"doc_id": doc_id}, include=[])["ids"])
