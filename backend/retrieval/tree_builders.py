"""The shapes of DISRetrieval's tree and of its Bisection baseline, before node texts are enhanced.

DISRetrieval: the trained sentence-level parser builds one tree per paragraph over its
sentences and one document tree over the paragraphs; each paragraph leaf of the document tree
is then replaced by that paragraph's tree, giving one integrated tree whose leaves are the
document's sentences. Bisection halves the sentence list recursively into a balanced binary
tree, ignoring paragraphs and discourse, which isolates what the discourse structure adds.
Internal nodes start as merges; `node_text.enhance` may replace their texts with summaries.

The document tree is parsed over paragraph vectors that are the mean of their sentences'
(the parser's trained convention), not over embedded paragraph summaries as in the paper, so
the tree's shape does not depend on the summariser and a merge-only tree can be enhanced later.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from backend.discourse.parser import SentenceRSTParser
from backend.discourse.rst_tree import RSTTree
from backend.ingest.document import Document
from backend.retrieval.discourse_tree import DiscourseTree, TreeDraft
from backend.retrieval.doc_units import TextUnit, paragraph_groups, sentence_units

BISECTION_PRODUCER = "bisection (balanced halving of the sentence list)"


def _sentence_leaves(draft: TreeDraft, units: Sequence[TextUnit]) -> list[int]:
    return [draft.leaf(u.text, u.start, u.end, "sentence", u.sentence_ids[0]) for u in units]


def add_rst_nodes(draft: TreeDraft, tree: RSTTree, unit_nodes: Sequence[int], scope: str) -> int:
    """Add `tree`'s internal nodes over existing nodes `unit_nodes`; returns the node over all units."""
    if len(unit_nodes) != len(tree.units):
        raise ValueError(f"{len(unit_nodes)} nodes for a tree over {len(tree.units)} units")
    made: dict[tuple[int, int], int] = {(i, i): node for i, node in enumerate(unit_nodes)}
    for node in sorted(tree.nodes, key=lambda x: x.end - x.start):
        left, right = node.child_spans
        made[node.span] = draft.join((made[left], made[right]), scope, node.relation, node.nuclearity)
    return made[(0, len(unit_nodes) - 1)]


def build_discourse_structure(
    doc: Document, parser: SentenceRSTParser, tree_id: str, metadata: dict[str, Any] | None = None
) -> DiscourseTree:
    """The integrated paragraph + document discourse tree over `doc`'s sentences (merge texts)."""
    units = sentence_units(doc)
    draft = TreeDraft()
    leaves = _sentence_leaves(draft, units)
    groups = paragraph_groups(units)
    parse = parser.parse_document([[units[i].text for i in group] for group in groups])
    roots = [
        add_rst_nodes(draft, tree, [leaves[i] for i in group], "paragraph")
        for tree, group in zip(parse.paragraph_trees, groups, strict=True)
    ]
    add_rst_nodes(draft, parse.document_tree, roots, "document")
    info = {"paragraphs": len(groups), "sentences": len(units), **(metadata or {})}
    return draft.finish(tree_id, doc.id, "disretrieval", parser.producer, info)


def build_bisection_structure(
    doc: Document, tree_id: str, metadata: dict[str, Any] | None = None
) -> DiscourseTree:
    """A balanced binary tree over `doc`'s sentences by recursive halving (merge texts)."""
    units = sentence_units(doc)
    draft = TreeDraft()
    _sentence_leaves(draft, units)

    def halve(first: int, last: int) -> int:
        if first == last:
            return first
        middle = (first + last) // 2
        return draft.join((halve(first, middle), halve(middle + 1, last)), "bisection")

    halve(0, len(units) - 1)
    info = {"sentences": len(units), **(metadata or {})}
    return draft.finish(tree_id, doc.id, "bisection", BISECTION_PRODUCER, info)
