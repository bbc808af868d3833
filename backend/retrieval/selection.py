"""What every tree and flat retriever returns: units chosen within a word budget, and why.

Retrieval runs over a *forest*: one indexed tree per document searched (a flat baseline is a
forest of leaves). Units are added in the order a retriever picks them until the budget is met;
the unit that crosses the budget is cut to fit exactly, so every method is scored on the same
number of words. The nodes visited on the way are kept with the leaves each one added, which is
what the app highlights.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from backend.retrieval.discourse_tree import DiscourseTree


@dataclass(frozen=True)
class IndexedTree:
    """A tree plus one vector per node (row i is node i): unit-normalised, or zero for "not ranked".

    A node gets a zero vector when the encoder could not read its whole text (a long merge): its
    vector would describe only its first words, so it takes no part in ranking, though its leaves
    still do.
    """

    tree: DiscourseTree
    vectors: np.ndarray
    words: np.ndarray = field(init=False, repr=False)
    """Words of each node's own text (merged nodes: their leaves'), computed once."""
    ranked: np.ndarray = field(init=False, repr=False)
    """True where the node has a vector and takes part in ranking."""
    parents: np.ndarray = field(init=False, repr=False)
    """Parent index per node, -1 for roots."""
    by_depth: tuple[np.ndarray, ...] = field(init=False, repr=False)
    """Node indices grouped by depth, roots first: the order context scores are computed in."""

    def __post_init__(self) -> None:
        if self.vectors.ndim != 2 or len(self.vectors) != len(self.tree.nodes):
            raise ValueError(f"{len(self.tree.nodes)} nodes but vectors of shape {self.vectors.shape}")
        nodes = self.tree.nodes
        depths = np.asarray([n.depth for n in nodes])
        set_field = object.__setattr__
        set_field(self, "words", np.asarray(self.tree.word_counts(), dtype=np.int64))
        set_field(self, "ranked", np.linalg.norm(self.vectors, axis=1) > 0)
        set_field(self, "parents", np.asarray([-1 if n.parent is None else n.parent for n in nodes]))
        set_field(self, "by_depth", tuple(np.flatnonzero(depths == d) for d in range(int(depths.max()) + 1)))


@dataclass(frozen=True)
class SelectedUnit:
    """A unit of evidence: a leaf (document text) or, for RAPTOR summaries, a node's own text."""

    tree: int
    """Position of the tree in the forest."""
    node: int
    score: float
    selected_by: int
    """The node whose turn in the ranking added this unit (itself for a leaf picked directly)."""
    words: int
    """Words kept: all of the unit's, or fewer for the unit cut at the budget."""
    kind: str = "leaf"


@dataclass(frozen=True)
class NodeVisit:
    """A node in ranking order until the budget was met, with the units it added (maybe none)."""

    tree: int
    node: int
    score: float
    """The score the node was ranked by (DISRetrieval: its context score)."""
    added: tuple[int, ...]
    cosine: float | None = None
    """The node's own cosine with the question, when it differs from `score`."""


@dataclass
class Selection:
    budget: int
    units: list[SelectedUnit] = field(default_factory=list)
    visits: list[NodeVisit] = field(default_factory=list)

    @property
    def words(self) -> int:
        return sum(u.words for u in self.units)

    def in_document_order(self) -> list[SelectedUnit]:
        """Units by tree, then by position in the document (leaves are numbered in document order)."""
        return sorted(self.units, key=lambda u: (u.tree, u.node))


class BudgetFill:
    """Counts words against the budget and says how many of a unit's words still fit."""

    def __init__(self, budget: int) -> None:
        self.budget = budget
        self.used = 0

    @property
    def full(self) -> bool:
        return self.used >= self.budget

    def take(self, words: int) -> int:
        kept = min(words, max(0, self.budget - self.used))
        self.used += kept
        return kept


def forest_scores(forest: Sequence[IndexedTree], query: np.ndarray) -> list[np.ndarray]:
    """Cosine of the query with every node of every tree (0 for nodes without a vector)."""
    q = np.asarray(query, np.float32)
    q = q / max(float(np.linalg.norm(q)), 1e-8)
    return [item.vectors @ q for item in forest]


def ranked(forest: Sequence[IndexedTree], scores: Sequence[np.ndarray]) -> list[tuple[int, int]]:
    """(tree, node) for every ranked node of the forest, best score first; ties keep document order."""
    if not scores:
        return []
    keep = [np.flatnonzero(item.ranked) for item in forest]
    flat = np.concatenate([s[k] for s, k in zip(scores, keep, strict=True)])
    owner = np.concatenate([np.full(len(k), t) for t, k in enumerate(keep)])
    local = np.concatenate(keep)
    order = np.argsort(-flat, kind="stable")
    return list(zip(owner[order].tolist(), local[order].tolist(), strict=True))


def unit_text(tree: DiscourseTree, unit: SelectedUnit) -> str:
    """The words of a selected unit that count toward the budget."""
    words = tree.text(unit.node).split()
    return " ".join(words[: unit.words])


def selection_text(forest: Sequence[IndexedTree], selection: Selection) -> str:
    """All selected text in document order, as scored by the evidence metric."""
    return " ".join(unit_text(forest[u.tree].tree, u) for u in selection.in_document_order())
