import pytest

from backend.discourse.rst_tree import RSTTree, Unit, branching_tree
from backend.eval.rst_parseval import parseval

UNITS = [Unit(str(i)) for i in range(4)]


def test_identical_trees_score_100() -> None:
    tree = branching_tree(UNITS, "right", "NS", "elaboration")
    scores = parseval([(tree, tree)] * 3)
    assert scores.as_row() == {"span": 100.0, "nuclearity": 100.0, "relation": 100.0, "full": 100.0}
    assert (scores.gold, scores.trees) == (9, 3)


def test_right_vs_left_branching_by_hand() -> None:
    # Right: (0,3) (1,3) (2,3); left: (0,3) (0,2) (0,1). Only the root span is shared.
    right = branching_tree(UNITS, "right", "NS", "elaboration")
    left = branching_tree(UNITS, "left", "NS", "joint")
    with_root = parseval([(right, left)])
    assert with_root.f1("span") == pytest.approx(100 / 3)  # 2*1 / (3+3)
    assert with_root.f1("nuclearity") == pytest.approx(100 / 3)  # root NS == NS
    assert with_root.f1("relation") == 0.0  # elaboration != joint
    assert with_root.f1("full") == 0.0
    assert parseval([(right, left)], include_root=False).f1("span") == 0.0


def test_micro_average_weights_by_nodes() -> None:
    right = branching_tree(UNITS, "right", "NS", "joint")
    left = branching_tree(UNITS, "left", "NS", "joint")
    pair = branching_tree(UNITS[:2], "right", "NS", "joint")
    # 1 of 3 + 1 of 1 matched -> 2 of 4, not the macro mean (33.3 + 100) / 2
    assert parseval([(right, left), (pair, pair)]).f1("span") == pytest.approx(50.0)


def test_mismatched_units_raise() -> None:
    with pytest.raises(ValueError):
        parseval([(branching_tree(UNITS, "right", "NS", "joint"), RSTTree(UNITS[:1], [], "x"))])
