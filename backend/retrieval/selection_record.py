"""What a tree retriever did for one question, as `Answer.structures["discourse_selection"]`.

The trees it searched (with who built their shape and texts), the nodes in ranking order until
the budget was met with their scores and the leaves each added, and the units finally selected.
The Explore page loads a tree by its id to highlight these nodes; the record round-trips through
JSON (answers are exported) and is checked on load.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from backend.errors import MalformedOutputError
from backend.retrieval.selection import IndexedTree, Selection

SCHEMA_VERSION = 1
MAX_VISITS = 60
PREVIEW_WORDS = 30


@dataclass(frozen=True)
class TreeUsed:
    tree_id: str
    doc_id: str
    doc_name: str
    method: str
    structure_producer: str
    text_producers: dict[str, int]
    summariser: str | None
    tau: int | None
    nodes: int
    built_now: bool


@dataclass(frozen=True)
class NodeScore:
    tree_id: str
    node: int
    score: float
    is_leaf: bool
    depth: int
    scope: str
    relation: str | None
    leaf_span: tuple[int, int] | None
    added: tuple[int, ...]
    preview: str
    cosine: float | None = None


@dataclass(frozen=True)
class SelectedLeaf:
    tree_id: str
    node: int
    selected_by: int
    score: float
    words: int
    kind: str


@dataclass
class SelectionRecord:
    method: str
    budget: int
    subtree_k: int | None
    words: int
    structure_reason: str
    trees: list[TreeUsed] = field(default_factory=list)
    visits: list[NodeScore] = field(default_factory=list)
    selected: list[SelectedLeaf] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"schema_version": SCHEMA_VERSION, **asdict(self)}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> SelectionRecord:
        if data.get("schema_version") != SCHEMA_VERSION:
            raise MalformedOutputError(
                f"Selection record schema {data.get('schema_version')!r} is not {SCHEMA_VERSION}.",
                "Ask the question again with this version of the app.",
            )
        try:
            record = cls(
                method=str(data["method"]),
                budget=int(data["budget"]),
                subtree_k=None if data["subtree_k"] is None else int(data["subtree_k"]),
                words=int(data["words"]),
                structure_reason=str(data["structure_reason"]),
                trees=[TreeUsed(**t) for t in data["trees"]],
                visits=[
                    NodeScore(
                        **{
                            **v,
                            "leaf_span": tuple(v["leaf_span"]) if v["leaf_span"] is not None else None,
                            "added": tuple(v["added"]),
                        }
                    )
                    for v in data["visits"]
                ],
                selected=[SelectedLeaf(**s) for s in data["selected"]],
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise MalformedOutputError(f"Selection record is incomplete: {exc!r}.", "Ask again.") from None
        known = {t.tree_id for t in record.trees}
        if any(v.tree_id not in known for v in record.visits) or any(
            s.tree_id not in known for s in record.selected
        ):
            raise MalformedOutputError("The selection names a tree it does not list.", "Ask again.")
        return record


def _preview(text: str) -> str:
    words = text.split()
    return " ".join(words[:PREVIEW_WORDS]) + (" …" if len(words) > PREVIEW_WORDS else "")


def make_record(
    method: str,
    forest: Sequence[IndexedTree],
    trees: Sequence[TreeUsed],
    selection: Selection,
    subtree_k: int | None,
    structure_reason: str,
) -> SelectionRecord:
    """The record of `selection` over `forest`; visits are capped to the first MAX_VISITS."""
    record = SelectionRecord(
        method, selection.budget, subtree_k, selection.words, structure_reason, list(trees)
    )
    for visit in selection.visits[:MAX_VISITS]:
        tree = forest[visit.tree].tree
        node = tree.nodes[visit.node]
        record.visits.append(
            NodeScore(
                tree.tree_id,
                visit.node,
                round(visit.score, 4),
                node.is_leaf,
                node.depth,
                node.scope,
                node.relation,
                node.span,
                visit.added,
                _preview(tree.text(visit.node, max_words=PREVIEW_WORDS + 1)),
                None if visit.cosine is None else round(visit.cosine, 4),
            )
        )
    for unit in selection.in_document_order():
        tree = forest[unit.tree].tree
        record.selected.append(
            SelectedLeaf(
                tree.tree_id, unit.node, unit.selected_by, round(unit.score, 4), unit.words, unit.kind
            )
        )
    return record
