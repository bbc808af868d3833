import json

import pytest

from backend.discourse.rst_tree import RSTNode, RSTTree, Unit, branching_tree, compose
from backend.errors import MalformedOutputError


def units(n: int) -> list[Unit]:
    return [Unit(f"Sentence {i}.", i * 20, i * 20 + 12) for i in range(n)]


def test_round_trip_through_json() -> None:
    nodes = [RSTNode(0, 0, 2, "NS", "elaboration"), RSTNode(1, 1, 2, "NN", "joint")]
    tree = RSTTree(units(3), nodes, "test", metadata={"k": 1})
    again = RSTTree.from_dict(json.loads(json.dumps(tree.to_dict())))
    assert again.to_dict() == tree.to_dict()
    assert again.units[1] == Unit("Sentence 1.", 20, 32)
    assert again.root == nodes[0]


def test_one_unit_tree_has_no_nodes() -> None:
    assert RSTTree(units(1), [], "test").root is None


@pytest.mark.parametrize(
    "nodes",
    [
        [],  # missing nodes
        [RSTNode(0, 0, 2, "NS", "elaboration"), RSTNode(0, 0, 1, "NS", "joint")],  # child span (1, 2) absent
        [RSTNode(0, 1, 2, "NS", "elaboration"), RSTNode(0, 1, 2, "NS", "joint")],  # duplicate span
        [RSTNode(0, 0, 2, "XX", "elaboration"), RSTNode(1, 1, 2, "NN", "joint")],  # bad nuclearity
        [RSTNode(0, 0, 2, "NS", "ELABORATION"), RSTNode(1, 1, 2, "NN", "joint")],  # label not in set
        [RSTNode(0, 0, 1, "NS", "joint"), RSTNode(1, 1, 2, "NN", "joint")],  # no root, overlapping
        [RSTNode(0, 2, 2, "NS", "joint"), RSTNode(1, 1, 2, "NN", "joint")],  # split == end
    ],
)
def test_invalid_trees_are_rejected(nodes: list[RSTNode]) -> None:
    with pytest.raises(MalformedOutputError):
        RSTTree(units(3), nodes, "test")


def test_rejects_unknown_label_set_and_schema() -> None:
    with pytest.raises(MalformedOutputError):
        RSTTree(units(1), [], "test", label_set="nope")
    data = RSTTree(units(1), [], "test").to_dict()
    with pytest.raises(MalformedOutputError):
        RSTTree.from_dict({**data, "schema_version": 99})
    with pytest.raises(MalformedOutputError):
        RSTTree.from_dict({k: v for k, v in data.items() if k != "units"})


def test_disco_rag_label_set_is_accepted() -> None:
    tree = RSTTree(units(2), [RSTNode(0, 0, 1, "NS", "EVIDENCE")], "llm", label_set="disco-rag-intra")
    assert tree.root.relation == "EVIDENCE"


def test_compose_and_deep_trees() -> None:
    inner = [branching_tree(units(3), "right", "NS", "joint"), RSTTree(units(1), [], "x")]
    outer = branching_tree(units(2), "left", "NN", "elaboration")
    whole = compose(outer, inner, "composed")
    assert [n.span for n in whole.nodes] == [(0, 3), (0, 2), (1, 2)]
    assert whole.root.split == 2
    deep = branching_tree(units(3000), "right", "NS", "joint")  # no recursion limit
    assert RSTTree.from_dict(json.loads(json.dumps(deep.to_dict()))).root.span == (0, 2999)
