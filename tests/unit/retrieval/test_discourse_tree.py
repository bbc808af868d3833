"""The retrieval tree: building, integration of paragraph and document trees, validation, JSON."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from backend.discourse.parser import DocumentParse
from backend.discourse.rst_tree import RSTNode, RSTTree, Unit
from backend.errors import MalformedOutputError
from backend.retrieval.discourse_tree import DiscourseTree
from backend.retrieval.tree_builders import build_bisection_structure, build_discourse_structure
from tests.unit.retrieval.conftest import leaves_tree, make_doc


def random_rst(units: int, draw) -> RSTTree:
    """A binary tree over `units` with split points drawn by hypothesis (a random parser)."""
    nodes: list[RSTNode] = []
    todo = [(0, units - 1)] if units > 1 else []
    while todo:
        start, end = todo.pop()
        split = draw(st.integers(start, end - 1))
        nuclearity = draw(st.sampled_from(["NS", "SN", "NN"]))
        nodes.append(RSTNode(start, split, end, nuclearity, "elaboration"))
        todo += [s for s in ((start, split), (split + 1, end)) if s[0] < s[1]]
    return RSTTree([Unit(f"u{i}") for i in range(units)], nodes, "random parser")


class RandomParser:
    """Stands in for the trained parser: the same interface, random but valid trees."""

    producer = "random parser"

    def __init__(self, draw) -> None:
        self.draw = draw

    def parse_document(self, paragraphs: Sequence[Sequence[str]]) -> DocumentParse:
        trees = [random_rst(len(p), self.draw) for p in paragraphs]
        return DocumentParse(trees, random_rst(len(paragraphs), self.draw))


def paragraphs_markdown(sizes: Sequence[int]) -> str:
    return "\n\n".join(
        " ".join(f"Paragraph {p} sentence {s} says something." for s in range(size))
        for p, size in enumerate(sizes)
    )


@settings(max_examples=40, deadline=None)
@given(sizes=st.lists(st.integers(1, 6), min_size=1, max_size=7), data=st.data())
def test_integrated_tree_is_one_valid_tree_over_all_sentences_in_order(sizes: list[int], data) -> None:
    doc = make_doc(paragraphs_markdown(sizes))
    tree = build_discourse_structure(doc, RandomParser(data.draw), "t")
    assert len(tree.roots) == 1
    root = tree.nodes[tree.roots[0]]
    assert root.span == (0, len(doc.sentences) - 1)
    assert [n.unit_id for n in tree.nodes if n.is_leaf] == [s.id for s in doc.sentences]
    assert len(tree.nodes) == 2 * len(doc.sentences) - 1  # a binary tree
    # every paragraph is exactly one subtree: some node (or leaf) spans exactly its sentences
    spans = {n.span for n in tree.nodes}
    first = 0
    for size in sizes:
        assert (first, first + size - 1) in spans
        first += size
    for node in tree.nodes:
        if node.scope == "paragraph":
            paragraph_ids = {doc.sentences[i].paragraph_id for i in range(node.span[0], node.span[1] + 1)}
            assert len(paragraph_ids) == 1
    assert tree.text(root.index) == " ".join(doc.sentence_text(s) for s in doc.sentences)


@settings(max_examples=30, deadline=None)
@given(count=st.integers(1, 40))
def test_bisection_is_balanced(count: int) -> None:
    doc = make_doc(" ".join(f"Sentence number {i} is here." for i in range(count)))
    tree = build_bisection_structure(doc, "b")
    assert tree.leaf_count == count == len(doc.sentences)
    assert max(tree.heights()) == (count - 1).bit_length()


def test_relations_and_roles_come_from_the_rst_tree() -> None:
    class FixedParser:
        producer = "fixed"

        def parse_document(self, paragraphs):
            inner = RSTTree([Unit("a"), Unit("b")], [RSTNode(0, 0, 1, "SN", "causal")], "fixed")
            return DocumentParse([inner], RSTTree([Unit("p")], [], "fixed"))

    doc = make_doc("First sentence here. Second sentence here.")
    tree = build_discourse_structure(doc, FixedParser(), "t")
    root = tree.nodes[tree.roots[0]]
    assert (root.relation, root.nuclearity, root.scope) == ("causal", "SN", "paragraph")
    assert [tree.nodes[c].role for c in root.children] == ["S", "N"]
    assert tree.structure_producer == "fixed"


def test_merged_text_can_be_cut_to_what_an_encoder_reads() -> None:
    tree = leaves_tree(["one two", "three four five"], [(0, 1)])
    assert tree.text(2) == "one two three four five"
    assert tree.text(2, max_words=3) == "one two three"
    assert tree.word_counts() == [2, 3, 5]
    summarised = tree.with_nodes(
        [*tree.nodes[:2], replace(tree.nodes[2], text="short summary", producer="s")]
    )
    assert summarised.text(2) == "short summary" and summarised.word_counts()[2] == 2


def test_json_round_trip_keeps_every_field() -> None:
    tree = leaves_tree(["a b", "c", "d e"], [(0, 1), (3, 2)])
    again = DiscourseTree.from_dict(json.loads(json.dumps(tree.to_dict())))
    assert again == tree


@pytest.mark.parametrize(
    "corrupt",
    [
        lambda d: d["nodes"][0].update(parent=None),  # a child that does not point back
        lambda d: d["nodes"][3].update(span=[0, 2]),  # a wrong span
        lambda d: d["nodes"].pop(),  # the root is missing
        lambda d: d["nodes"][0].update(text=None),  # a leaf without text
        lambda d: d.update(schema_version=99),
        lambda d: d.update(roots=[0]),  # a root that has a parent
    ],
)
def test_broken_trees_are_refused_on_load(corrupt) -> None:
    data = leaves_tree(["a", "b", "c"], [(0, 1), (3, 2)]).to_dict()
    corrupt(data)
    with pytest.raises(MalformedOutputError):
        DiscourseTree.from_dict(data)
