"""Which nodes are embedded as text, averaged from their leaves, or left unranked."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from backend.retrieval.node_vectors import node_vectors
from tests.unit.retrieval.conftest import leaves_tree


def fake_encode(texts: list[str]) -> np.ndarray:
    """Deterministic unit vectors per text (a stand-in encoder); records what it was asked."""
    fake_encode.asked.extend(texts)
    out = np.stack([np.random.default_rng(abs(hash(t)) % 2**32).standard_normal(8) for t in texts])
    return (out / np.linalg.norm(out, axis=1, keepdims=True)).astype(np.float32)


def word_counts(texts) -> list[int]:
    return [len(t.split()) for t in texts]


def test_short_merges_are_embedded_longer_ones_averaged_and_the_longest_unranked() -> None:
    # leaves of 3 words; window 10: merges up to 5 words as text, up to 10 averaged, beyond unranked
    texts = ["a b c", "d e f", "g h i", "j k l"]
    tree = leaves_tree(texts, [(0, 1), (4, 2), (5, 3)])  # node 4: 6 words, 5: 9 words, 6: 12 words
    small = leaves_tree(["a b", "c d"], [(0, 1)])  # node 2: 4 words
    fake_encode.asked = []
    vectors = node_vectors(tree, fake_encode, word_counts, window=10, dimension=8)
    assert fake_encode.asked == texts  # no merge was short enough to embed as text
    mean = vectors[0] + vectors[1]
    assert np.allclose(vectors[4], mean / np.linalg.norm(mean), atol=1e-6)
    assert np.linalg.norm(vectors[5]) == pytest.approx(1.0) and not vectors[6].any()
    fake_encode.asked = []
    node_vectors(small, fake_encode, word_counts, window=10, dimension=8)
    assert fake_encode.asked == ["a b", "c d", "a b c d"]


def test_summaries_are_always_embedded_as_text() -> None:
    tree = leaves_tree(["a b c d e f", "g h i j k l"], [(0, 1)])
    summary = replace(tree.nodes[2], text="a short summary", producer="summary:scripted")
    tree = tree.with_nodes([*tree.nodes[:2], summary])
    fake_encode.asked = []
    vectors = node_vectors(tree, fake_encode, word_counts, window=4, dimension=8)
    assert fake_encode.asked[-1] == "a short summary" and vectors[2].any()
