"""Relation labelling at REDUCE time: one joint (nuclearity, relation) label for two joined subtrees.

The structure (SHIFT/REDUCE) does not depend on the labels, so the parser first builds the tree
greedily and then labels every node in one batched forward. The labeller sees richer features of
the two subtrees being joined than the transition scorer does: both subtree vectors, their
product and difference, the sentences that meet at the boundary, the first sentence of each
side, leading discourse markers, hashed first and last words and surface cues of the units at
the edges (including the units just before and after the joined span), sizes and position.
It is trained on gold nodes (teacher forcing) and scores pairs of (nuclearity, relation) seen in
training as single classes.
"""

from __future__ import annotations

import math
import re
import zlib
from collections.abc import Sequence

import numpy as np
import torch
from torch import nn

from backend.discourse.features import UNIT_CUES, unit_cues
from backend.discourse.rst_tree import RSTNode, RSTTree

LEAD_BUCKETS, LAST_BUCKETS = 128, 32
LABEL_UNIT_CUES = UNIT_CUES + LEAD_BUCKETS + LAST_BUCKETS
_TOKEN = re.compile(r"[\w']+|[^\w\s]")
LABEL_SLOTS = 8  # left, right, left*right, left-right, boundary pair and its product, left's first unit
LABEL_SCALARS = 14
EDGE_UNITS = 6  # cues of: right's first/last, left's first/last, unit before left, unit after right


def label_feature_size(dim: int) -> int:
    return LABEL_SLOTS * dim + LABEL_SCALARS + EDGE_UNITS * LABEL_UNIT_CUES


def lexical_cues(text: str) -> np.ndarray:
    """Hashed first three tokens and last token of a unit (crc32, so stable across runs).

    They reach cue words outside the fixed marker list of `unit_cues`.
    """
    tokens = _TOKEN.findall(text.lower())
    lexical = np.zeros(LEAD_BUCKETS + LAST_BUCKETS, np.float32)
    for token in tokens[:3]:
        lexical[zlib.crc32(token.encode()) % LEAD_BUCKETS] = 1.0
    if tokens:
        lexical[LEAD_BUCKETS + zlib.crc32(tokens[-1].encode()) % LAST_BUCKETS] = 1.0
    return lexical


def label_unit_cues(text: str, base: np.ndarray | None = None) -> np.ndarray:
    """`unit_cues` (or `base`, when already computed) followed by `lexical_cues`."""
    return np.concatenate([unit_cues(text) if base is None else base, lexical_cues(text)])


def span_vectors(tree_nodes: Sequence[RSTNode], vectors: np.ndarray) -> dict[tuple[int, int], np.ndarray]:
    """Each span's vector as the parser builds it: a leaf's own, a node's the mean of its children's."""
    out = {(i, i): vectors[i] for i in range(len(vectors))}
    for node in sorted(tree_nodes, key=lambda n: n.end - n.start):
        out[(node.start, node.end)] = (out[(node.start, node.split)] + out[(node.split + 1, node.end)]) / 2
    return out


def label_features(
    left: tuple[int, int],
    right: tuple[int, int],
    left_vector: np.ndarray,
    right_vector: np.ndarray,
    vectors: np.ndarray,
    cues: np.ndarray,
    document_level: bool,
) -> np.ndarray:
    """Features of joining span `left` (start, end) with the adjacent span `right` (inclusive ends).

    `cues` holds `label_unit_cues` of every unit.
    """
    n = len(vectors)
    (ls, le), (rs, re_) = left, right
    b_left, b_right, f_left = vectors[le], vectors[rs], vectors[ls]
    blank = np.zeros(LABEL_UNIT_CUES, np.float32)

    def cos(a: np.ndarray, b: np.ndarray) -> float:
        norm = float(np.linalg.norm(a) * np.linalg.norm(b))
        return float(a @ b) / norm if norm > 0 else 0.0

    size_l, size_r = le - ls + 1, re_ - rs + 1
    scalars = np.array(
        [
            math.log1p(size_l) / 3, math.log1p(size_r) / 3, size_l == 1, size_r == 1,
            math.log(size_l / size_r) / 3, ls / n, (re_ + 1) / n, ls == 0, re_ == n - 1,
            ls == 0 and re_ == n - 1, math.log1p(n) / 5, float(document_level),
            cos(left_vector, right_vector), cos(b_left, b_right),
        ],
        np.float32,
    )  # fmt: skip
    edges = [
        cues[rs], cues[re_], cues[ls], cues[le],
        cues[ls - 1] if ls > 0 else blank, cues[re_ + 1] if re_ + 1 < n else blank,
    ]  # fmt: skip
    parts = [
        left_vector, right_vector, left_vector * right_vector, left_vector - right_vector,
        b_left, b_right, b_left * b_right, f_left, scalars, *edges,
    ]  # fmt: skip
    return np.concatenate(parts).astype(np.float32)


def tree_label_features(
    nodes: Sequence[RSTNode], vectors: np.ndarray, cues: np.ndarray, document_level: bool
) -> np.ndarray:
    """(len(nodes), label_feature_size) for every node of a tree over `vectors`."""
    spans = span_vectors(nodes, vectors)
    rows = [
        label_features(
            (nd.start, nd.split),
            (nd.split + 1, nd.end),
            spans[(nd.start, nd.split)],
            spans[(nd.split + 1, nd.end)],
            vectors,
            cues,
            document_level,
        )
        for nd in nodes
    ]
    return np.stack(rows) if rows else np.zeros((0, label_feature_size(vectors.shape[1])), np.float32)


class LabelScorer(nn.Module):
    """Label features -> logits over the (nuclearity, relation) pairs seen in training."""

    def __init__(self, n_features: int, hidden: int, n_labels: int, dropout: float = 0.3):
        super().__init__()
        self.register_buffer("mean", torch.zeros(n_features))
        self.register_buffer("scale", torch.ones(n_features))
        self.body = nn.Sequential(
            nn.Dropout(dropout), nn.Linear(n_features, hidden), nn.GELU(), nn.Dropout(dropout)
        )
        self.out = nn.Linear(hidden, n_labels)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.out(self.body((x - self.mean) * self.scale))


def gold_pairs(tree: RSTTree) -> list[tuple[str, str]]:
    return [(n.nuclearity, n.relation) for n in tree.nodes]


def predict_labels(
    model: LabelScorer,
    pairs: Sequence[tuple[str, str]],
    nodes: Sequence[RSTNode],
    vectors: np.ndarray,
    cues: np.ndarray,
    document_level: bool,
) -> list[RSTNode]:
    """`nodes` with nuclearity and relation replaced by the labeller's best pair (one batched forward)."""
    if not nodes:
        return []
    x = torch.from_numpy(tree_label_features(nodes, vectors, cues, document_level))
    best = model(x).argmax(-1).tolist()
    return [RSTNode(nd.start, nd.split, nd.end, *pairs[b]) for nd, b in zip(nodes, best, strict=True)]
