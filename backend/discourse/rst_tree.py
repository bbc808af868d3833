"""The RST tree shared by every producer: the trained sentence parser, baselines and LLM trees.

Leaves are units (EDUs or sentences) in document order; every internal node joins two adjacent
spans, start..split and split+1..end, with a nuclearity ("NS", "SN", "NN") and a relation from
the tree's label set. Nodes are kept as a flat list, not nested objects, so a right-branching
tree over thousands of sentences needs no recursion to validate, store or draw. Trees
round-trip through JSON with a schema version and are validated on construction, so a cached
or LLM-built tree is either a real tree or a MalformedOutputError.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from backend.discourse.labels import LABEL_SETS, NUCLEARITIES
from backend.errors import MalformedOutputError

SCHEMA_VERSION = 1


@dataclass(frozen=True)
class Unit:
    """A leaf: its text and, when known, its character offsets in the source document."""

    text: str
    start_char: int | None = None
    end_char: int | None = None


@dataclass(frozen=True)
class RSTNode:
    """Internal node over units start..end whose children are start..split and split+1..end."""

    start: int
    split: int
    end: int
    nuclearity: str
    relation: str

    @property
    def span(self) -> tuple[int, int]:
        return (self.start, self.end)

    @property
    def child_spans(self) -> tuple[tuple[int, int], tuple[int, int]]:
        return (self.start, self.split), (self.split + 1, self.end)


@dataclass
class RSTTree:
    """A validated binary RST tree over `units`, with the name of what produced it."""

    units: list[Unit]
    nodes: list[RSTNode]
    producer: str
    label_set: str = "gum-coarse"
    metadata: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.nodes = sorted(self.nodes, key=lambda n: (n.start, -n.end))  # pre-order
        self.validate()

    @property
    def root(self) -> RSTNode | None:
        """The node over all units; None for a one-unit tree."""
        return self.nodes[0] if self.nodes else None

    def by_span(self) -> dict[tuple[int, int], RSTNode]:
        return {node.span: node for node in self.nodes}

    def validate(self) -> None:
        """Raise MalformedOutputError unless this is one binary tree over all units, in order."""
        n = len(self.units)
        if n == 0:
            raise MalformedOutputError("An RST tree needs at least one unit.", "Pass one or more units.")
        if self.label_set not in LABEL_SETS:
            raise MalformedOutputError(
                f"Unknown label set {self.label_set!r}.", f"Use one of: {', '.join(sorted(LABEL_SETS))}."
            )
        allowed = LABEL_SETS[self.label_set]
        for node in self.nodes:
            if not 0 <= node.start <= node.split < node.end < n:
                raise MalformedOutputError(
                    f"Node {node.start}..{node.split}..{node.end} is not a split of units 0..{n - 1}.",
                    "Each node needs start <= split < end inside the unit range.",
                )
            if node.nuclearity not in NUCLEARITIES:
                raise MalformedOutputError(
                    f"Unknown nuclearity {node.nuclearity!r}.", f"Use one of: {', '.join(NUCLEARITIES)}."
                )
            if node.relation not in allowed:
                raise MalformedOutputError(
                    f"Relation {node.relation!r} is not in the {self.label_set!r} set.",
                    f"Use one of: {', '.join(sorted(allowed))}.",
                )
        spans = self.by_span()
        if len(spans) != len(self.nodes) or len(self.nodes) != n - 1:
            raise MalformedOutputError(
                f"{len(self.nodes)} nodes ({len(spans)} distinct spans) for {n} units.",
                f"A binary tree over {n} units has exactly {n - 1} distinct internal nodes.",
            )
        if n > 1:
            self._check_reachable(spans, n)

    @staticmethod
    def _check_reachable(spans: dict[tuple[int, int], RSTNode], n: int) -> None:
        if (0, n - 1) not in spans:
            raise MalformedOutputError("No node covers all units.", "The root must span every unit.")
        todo, seen = [(0, n - 1)], 0
        while todo:
            span = todo.pop()
            seen += 1
            for child in spans[span].child_spans:
                if child[0] == child[1]:
                    continue
                if child not in spans:
                    raise MalformedOutputError(
                        f"Node {span} has child span {child}, which is no node.",
                        "Every multi-unit child must itself be a node.",
                    )
                todo.append(child)
        if seen != len(spans):
            raise MalformedOutputError(
                "Some nodes hang outside the tree.", "Remove nodes not under the root."
            )

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema_version": SCHEMA_VERSION,
            "producer": self.producer,
            "label_set": self.label_set,
            "units": [
                {"text": u.text, "start_char": u.start_char, "end_char": u.end_char} for u in self.units
            ],
            "nodes": [
                {
                    "start": x.start,
                    "split": x.split,
                    "end": x.end,
                    "nuclearity": x.nuclearity,
                    "relation": x.relation,
                }
                for x in self.nodes
            ],
            "metadata": dict(self.metadata),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RSTTree:
        """Rebuild and validate; a wrong schema version or a broken tree raises MalformedOutputError."""
        if data.get("schema_version") != SCHEMA_VERSION:
            raise MalformedOutputError(
                f"RST tree schema version {data.get('schema_version')!r} is not {SCHEMA_VERSION}.",
                "Rebuild the cached tree with this version of the app.",
            )
        try:
            units = [Unit(str(u["text"]), u.get("start_char"), u.get("end_char")) for u in data["units"]]
            nodes = [
                RSTNode(
                    int(x["start"]), int(x["split"]), int(x["end"]), str(x["nuclearity"]), str(x["relation"])
                )
                for x in data["nodes"]
            ]
            return cls(
                units, nodes, str(data["producer"]), str(data["label_set"]), dict(data.get("metadata", {}))
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise MalformedOutputError(
                f"RST tree dict is incomplete: {exc!r}.", "Check its fields."
            ) from None


def compose(outer: RSTTree, inner: list[RSTTree], producer: str) -> RSTTree:
    """Replace each leaf i of `outer` by the tree `inner[i]`: one tree over all inner units."""
    if len(inner) != len(outer.units):
        raise ValueError(f"compose: {len(outer.units)} outer leaves but {len(inner)} inner trees")
    offsets = [0]
    for tree in inner:
        offsets.append(offsets[-1] + len(tree.units))
    nodes = [
        RSTNode(x.start + off, x.split + off, x.end + off, x.nuclearity, x.relation)
        for tree, off in zip(inner, offsets, strict=False)
        for x in tree.nodes
    ]
    nodes += [
        RSTNode(offsets[x.start], offsets[x.split + 1] - 1, offsets[x.end + 1] - 1, x.nuclearity, x.relation)
        for x in outer.nodes
    ]
    units = [unit for tree in inner for unit in tree.units]
    return RSTTree(units, nodes, producer, outer.label_set)


def branching_tree(units: list[Unit], direction: str, nuclearity: str, relation: str) -> RSTTree:
    """Right- ("right") or left-branching ("left") tree with one label everywhere: a baseline."""
    n = len(units)
    if direction == "right":
        nodes = [RSTNode(i, i, n - 1, nuclearity, relation) for i in range(n - 1)]
    elif direction == "left":
        nodes = [RSTNode(0, j - 1, j, nuclearity, relation) for j in range(1, n)]
    else:
        raise ValueError(f"direction must be 'right' or 'left', not {direction!r}")
    return RSTTree(units, nodes, f"{direction}-branching", "gum-coarse")
