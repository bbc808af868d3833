"""DISRetrieval's dual-selection retrieval (Algorithm 1 of the paper), with a word budget.

Every ranked node of every tree is scored against the question. Walking the ranking, a leaf not
yet used is added directly; an internal node adds the `k` best-scoring leaves of its subtree
that are not yet used ("controlled subtree expansion"). The walk stops as soon as the selected
leaves reach the word budget; the leaf that crosses it is cut to fit. A forest of leaves alone
(the flat baselines) reduces this to plain top-scoring selection.

One change from the paper, on by default: a node is ranked by its *context score*, its own
cosine blended with its parent's context score, `s'(v) = w * cos(q, v) + (1 - w) * s'(parent)`,
so a sentence counts for more when the discourse unit it belongs to is also about the question.
With `context_weight=1.0` the ranking is the paper's plain cosine. Measured on QASPER dev
papers (docs/disretrieval.md), this blend is what lets the discourse tree beat flat chunks with
MiniLM embeddings; Bisection gets the same ranking, so the comparison isolates the tree's shape.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from backend.retrieval.selection import (
    BudgetFill,
    IndexedTree,
    NodeVisit,
    SelectedUnit,
    Selection,
    forest_scores,
    ranked,
)

CONTEXT_WEIGHT = 0.5
"""Weight of a node's own cosine in its context score (1.0 = the paper's plain cosine)."""


def context_scores(item: IndexedTree, cosine: np.ndarray, weight: float) -> np.ndarray:
    """Own cosine blended with the parent's context score, top-down; nodes under an unranked
    parent (or at the top) keep their own cosine."""
    scores = cosine.astype(np.float64)
    if weight >= 1.0:
        return scores
    for level in item.by_depth[1:]:
        parents = item.parents[level]
        blended = level[item.ranked[parents]]
        scores[blended] = weight * cosine[blended] + (1 - weight) * scores[item.parents[blended]]
    return scores


def _subtree_candidates(item: IndexedTree, node: int, leaf_scores: np.ndarray, used: np.ndarray) -> list[int]:
    """Unused leaves under `node`, best score first (ties in document order)."""
    span = item.tree.nodes[node].span
    leaves = np.arange(span[0], span[1] + 1) if span is not None else np.asarray(item.tree.leaves_of(node))
    leaves = leaves[~used[leaves]]
    order = np.argsort(-leaf_scores[leaves], kind="stable")
    return leaves[order].tolist()


def dual_select(
    forest: Sequence[IndexedTree],
    query: np.ndarray,
    budget_words: int,
    k: int,
    context_weight: float = CONTEXT_WEIGHT,
) -> Selection:
    """Leaves chosen by dual selection until `budget_words`; see the module docstring."""
    if budget_words < 1 or k < 1:
        raise ValueError(f"budget_words and k must be positive, got {budget_words} and {k}")
    if not 0.0 < context_weight <= 1.0:
        raise ValueError(f"context_weight must be in (0, 1], got {context_weight}")
    cosines = forest_scores(forest, query)
    scores = [context_scores(item, c, context_weight) for item, c in zip(forest, cosines, strict=True)]
    leaf_counts = [item.tree.leaf_count for item in forest]
    used = [np.zeros(count, dtype=bool) for count in leaf_counts]
    fill = BudgetFill(budget_words)
    selection = Selection(budget_words)
    for tree, node in ranked(forest, scores):
        if fill.full:
            break
        item = forest[tree]
        if node < leaf_counts[tree]:
            candidates = [] if used[tree][node] else [node]
        else:
            candidates = _subtree_candidates(item, node, scores[tree][: leaf_counts[tree]], used[tree])[:k]
        added = []
        for leaf in candidates:
            size = int(item.words[leaf])
            used[tree][leaf] = True
            if size == 0:
                continue
            kept = fill.take(size)
            selection.units.append(SelectedUnit(tree, leaf, float(scores[tree][leaf]), node, kept))
            added.append(leaf)
            if fill.full:
                break
        selection.visits.append(
            NodeVisit(tree, node, float(scores[tree][node]), tuple(added), float(cosines[tree][node]))
        )
    return selection
