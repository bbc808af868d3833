"""How each tree node gets its vector, given a length-limited encoder such as MiniLM.

Leaves and summaries are embedded as text (what the paper does for every node). A merged node's
text is its leaves' text, which grows with the node, and a small encoder reads it badly: MiniLM
was trained on inputs up to 128 word pieces and cuts everything past its window (256), so the
vector of a long merge would describe only its first sentences. Merged nodes therefore get:

- up to half the window: the embedding of their text;
- up to the whole window: the normalised mean of their leaves' vectors (no encoder call);
- longer: a zero vector, so they are not ranked (their leaves still are, and dual selection still
  reaches them through smaller nodes).

The thresholds follow from the encoder's window, not from a data set; docs/disretrieval.md shows
what each choice does on QASPER dev papers. Embedding half the text of a merge-only tree also
halves its build time.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from backend.retrieval.discourse_tree import DiscourseTree

Encode = Callable[[list[str]], np.ndarray]
CountTokens = Callable[[Sequence[str]], list[int]]


def _leaf_mean(tree: DiscourseTree, vectors: np.ndarray, prefix: np.ndarray, index: int) -> np.ndarray:
    span = tree.nodes[index].span
    if span is not None:
        total = prefix[span[1] + 1] - prefix[span[0]]
    else:
        total = vectors[tree.leaves_of(index)].sum(axis=0)
    norm = float(np.linalg.norm(total))
    return (total / norm).astype(np.float32) if norm > 0 else np.zeros_like(total, dtype=np.float32)


def node_vectors(
    tree: DiscourseTree, encode: Encode, count_tokens: CountTokens, window: int, dimension: int
) -> np.ndarray:
    """One row per node; `window` is the encoder's limit in word pieces (special tokens excluded)."""
    vectors = np.zeros((len(tree.nodes), dimension), np.float32)
    leaves = [n.index for n in tree.nodes if n.is_leaf]
    merged = [n.index for n in tree.nodes if not n.is_leaf and n.text is None]
    summaries = [n.index for n in tree.nodes if not n.is_leaf and n.text is not None]
    counts = count_tokens([tree.text(i, max_words=window + 1) for i in merged])
    short = [i for i, count in zip(merged, counts, strict=True) if count <= window // 2]
    middle = [i for i, count in zip(merged, counts, strict=True) if window // 2 < count <= window]
    as_text = leaves + summaries + short
    if as_text:
        vectors[as_text] = encode([tree.text(i) for i in as_text])
    prefix = np.concatenate(
        [np.zeros((1, dimension)), np.cumsum(vectors[: len(leaves)], axis=0, dtype=np.float64)]
    )
    for index in middle:
        vectors[index] = _leaf_mean(tree, vectors, prefix, index)
    return vectors
