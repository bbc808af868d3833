"""RST-Parseval for binary trees: compares two trees, whoever produced them.

Variant (Morey et al. 2017, "standard Parseval" on binarised trees): each internal node is
scored as its unit span (start, end) plus its own labels: nuclearity of its two children (NS,
SN, NN) and the relation joining them. Leaves are never counted. The root is counted by default
(`include_root=True`): its span always matches, but its nuclearity and relation are real
decisions, and in a two-sentence paragraph they are the only ones; `include_root=False` gives
the stricter span figure. Span F1 compares spans; nuclearity F1 span+nuclearity; relation F1
span+relation; full F1 span+nuclearity+relation. Counts are summed over all trees before
dividing (micro-average), so a long document weighs more than a short one.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from backend.discourse.rst_tree import RSTTree

METRICS: tuple[str, ...] = ("span", "nuclearity", "relation", "full")


@dataclass
class ParsevalScores:
    """Micro-averaged matches and totals per metric; F1 in percent."""

    matched: dict[str, int]
    gold: int
    predicted: int
    trees: int

    def f1(self, metric: str) -> float:
        total = self.gold + self.predicted
        return 100.0 * 2 * self.matched[metric] / total if total else 0.0

    def as_row(self) -> dict[str, float]:
        return {metric: self.f1(metric) for metric in METRICS}


def _items(tree: RSTTree, metric: str, include_root: bool) -> Counter[tuple]:
    keys = {
        "span": lambda n: (n.start, n.end),
        "nuclearity": lambda n: (n.start, n.end, n.nuclearity),
        "relation": lambda n: (n.start, n.end, n.relation),
        "full": lambda n: (n.start, n.end, n.nuclearity, n.relation),
    }[metric]
    root = (0, len(tree.units) - 1)
    return Counter(keys(n) for n in tree.nodes if include_root or (n.start, n.end) != root)


def parseval(pairs: Iterable[tuple[RSTTree, RSTTree]], include_root: bool = True) -> ParsevalScores:
    """Score (gold, predicted) tree pairs over the same units; raises ValueError on a unit mismatch."""
    matched = dict.fromkeys(METRICS, 0)
    gold = predicted = trees = 0
    for gold_tree, pred_tree in pairs:
        if len(gold_tree.units) != len(pred_tree.units):
            raise ValueError(
                f"gold has {len(gold_tree.units)} units, prediction {len(pred_tree.units)}: "
                "trees must cover the same units"
            )
        for metric in METRICS:
            both = _items(gold_tree, metric, include_root) & _items(pred_tree, metric, include_root)
            matched[metric] += sum(both.values())
        gold += sum(_items(gold_tree, "span", include_root).values())
        predicted += sum(_items(pred_tree, "span", include_root).values())
        trees += 1
    return ParsevalScores(matched, gold, predicted, trees)
