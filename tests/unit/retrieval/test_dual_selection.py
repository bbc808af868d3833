"""Dual selection on hand-built trees whose node scores are set by hand.

Most tests use the paper's ranking (plain cosine, context_weight=1.0), where the order is easy to
work out by hand; the context score and unranked nodes have their own tests at the end.
"""

from __future__ import annotations

import numpy as np
import pytest

from backend.retrieval.dual_selection import context_scores, dual_select
from backend.retrieval.selection import IndexedTree, selection_text
from tests.unit.retrieval.conftest import QUERY, leaves_tree, with_scores

PAPER = 1.0
FIVE = ["a1 a2", "b1 b2 b3", "c1", "d1 d2 d3 d4", "e1 e2"]
# leaves 0..4; node 5 = (0, 1); node 6 = (2, 3); node 7 = (6, 4); node 8 = root (5, 7)
JOINS = [(0, 1), (2, 3), (6, 4), (5, 7)]


def tree_with(scores: list[float]):
    return with_scores(leaves_tree(FIVE, JOINS), scores)


def test_best_leaf_is_taken_directly_and_internal_nodes_add_their_top_k_leaves() -> None:
    # leaf 3 ranks first, then node 7 (leaves 2, 3, 4): 3 is used, so its best unused leaves 4, 2
    item = tree_with([0.1, 0.2, 0.3, 0.9, 0.4, 0.0, 0.0, 0.8, 0.0])
    selection = dual_select([item], QUERY, budget_words=100, k=2, context_weight=PAPER)
    assert [(u.node, u.selected_by) for u in selection.units[:3]] == [(3, 3), (4, 7), (2, 7)]
    assert selection.visits[0].node == 3 and selection.visits[1].added == (4, 2)


def test_budget_exactly_met_stops_without_cutting() -> None:
    item = tree_with([0.1, 0.2, 0.3, 0.9, 0.8, 0.0, 0.0, 0.0, 0.0])
    selection = dual_select(
        [item], QUERY, budget_words=6, k=3, context_weight=PAPER
    )  # leaf 3 (4 words) + leaf 4 (2 words)
    assert [u.node for u in selection.units] == [3, 4]
    assert [u.words for u in selection.units] == [4, 2]
    assert selection.words == 6


def test_the_leaf_that_crosses_the_budget_is_cut_to_fit() -> None:
    item = tree_with([0.1, 0.8, 0.3, 0.9, 0.2, 0.0, 0.0, 0.0, 0.0])
    selection = dual_select([item], QUERY, budget_words=5, k=3, context_weight=PAPER)
    assert [(u.node, u.words) for u in selection.units] == [(3, 4), (1, 1)]
    assert selection_text([item], selection) == "b1 d1 d2 d3 d4"  # document order, cut leaf keeps 1 word


def test_k_larger_than_the_subtree_takes_all_its_unused_leaves() -> None:
    item = tree_with([0.1, 0.2, 0.3, 0.4, 0.5, 0.95, 0.0, 0.0, 0.0])
    selection = dual_select([item], QUERY, budget_words=50, k=10, context_weight=PAPER)
    assert [u.node for u in selection.units[:2]] == [1, 0]  # node 5 has two leaves; leaf 1 scores higher
    assert selection.visits[0].added == (1, 0)


def test_used_leaves_are_never_added_twice() -> None:
    # node 5 (leaves 0, 1) first, then leaf 0 and leaf 1 themselves: nothing new, then leaf 4
    item = tree_with([0.8, 0.7, 0.1, 0.1, 0.5, 0.9, 0.0, 0.0, 0.0])
    selection = dual_select([item], QUERY, budget_words=7, k=5, context_weight=PAPER)
    nodes = [u.node for u in selection.units]
    assert nodes == [0, 1, 4] and len(set(nodes)) == len(nodes)
    assert [v.added for v in selection.visits[:4]] == [(0, 1), (), (), (4,)]


def test_a_budget_larger_than_the_document_returns_everything_once() -> None:
    item = tree_with([0.5] * 9)
    selection = dual_select([item], QUERY, budget_words=1000, k=2, context_weight=PAPER)
    assert sorted(u.node for u in selection.units) == [0, 1, 2, 3, 4]
    assert selection.words == 12


def test_a_forest_of_two_trees_ranks_nodes_across_documents() -> None:
    first = with_scores(leaves_tree(["x1 x2", "y1"], [(0, 1)], "t1"), [0.2, 0.3, 0.1])
    second = with_scores(leaves_tree(["z1 z2 z3"], [], "t2"), [0.9])
    selection = dual_select([first, second], QUERY, budget_words=4, k=1, context_weight=PAPER)
    assert [(u.tree, u.node) for u in selection.units] == [(1, 0), (0, 1)]
    assert [(u.tree, u.node) for u in selection.in_document_order()] == [(0, 1), (1, 0)]


@pytest.mark.parametrize(("budget", "k"), [(0, 1), (10, 0)])
def test_nonpositive_budget_or_k_is_refused(budget: int, k: int) -> None:
    with pytest.raises(ValueError):
        dual_select([tree_with([0.5] * 9)], QUERY, budget, k)


def test_context_score_blends_a_node_with_its_parents_context_top_down() -> None:
    item = tree_with([0.1, 0.2, 0.3, 0.9, 0.4, 0.5, 0.6, 0.7, 0.8])
    scores = context_scores(item, item.vectors @ QUERY, 0.5)
    assert scores[8] == pytest.approx(0.8)  # the root keeps its cosine
    assert scores[7] == pytest.approx(0.5 * 0.7 + 0.5 * 0.8)
    assert scores[6] == pytest.approx(0.5 * 0.6 + 0.5 * scores[7])
    assert scores[3] == pytest.approx(0.5 * 0.9 + 0.5 * scores[6])


def test_context_lifts_a_sentence_whose_discourse_unit_is_relevant() -> None:
    # leaf 0 alone scores best, but leaf 2 sits in a relevant unit (node 6, under node 7 and the
    # root) while leaf 0's unit (node 5) is off topic: with context, node 6 ranks first and adds leaf 2
    item = tree_with([0.8, 0.0, 0.7, 0.0, 0.0, 0.0, 0.75, 0.7, 0.7])
    plain = dual_select([item], QUERY, budget_words=1, k=1, context_weight=PAPER)
    blended = dual_select([item], QUERY, budget_words=1, k=1)
    assert plain.units[0].node == 0 and blended.units[0].node == 2


def test_nodes_without_a_vector_are_not_ranked_but_their_leaves_are() -> None:
    item = tree_with([0.1, 0.2, 0.3, 0.4, 0.5, 0.0, 0.0, 0.0, 0.0])
    vectors = item.vectors.copy()
    vectors[8] = 0.0  # the root's text was too long for the encoder
    unranked = IndexedTree(item.tree, vectors)
    selection = dual_select([unranked], QUERY, budget_words=100, k=2)
    assert 8 not in [v.node for v in selection.visits]
    assert sorted(u.node for u in selection.units) == [0, 1, 2, 3, 4]
    scores = context_scores(unranked, vectors @ QUERY, 0.5)
    assert scores[5] == pytest.approx(float(vectors[5] @ QUERY))  # its parent is unranked: own cosine only
    assert np.isfinite(scores).all()
