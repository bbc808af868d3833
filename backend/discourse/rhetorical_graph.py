"""The inter-chunk rhetorical graph shared by every producer: the trained classifier and LLMs.

Nodes are the k retrieved chunks, by position; a directed edge i -> j says how chunk i serves
chunk j, with one label from the Disco-RAG inter-chunk set. Graphs round-trip through JSON with
a schema version and are validated on construction, so a cached or LLM-built graph is either
well formed or a MalformedOutputError.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from backend.errors import MalformedOutputError

SCHEMA_VERSION = 1

INTER_CHUNK: tuple[str, ...] = (
    "SUPPORTS",
    "CONTRADICTS",
    "ELABORATES",
    "EXEMPLIFIES",
    "CAUSES",
    "RESULTS_FROM",
    "ENABLES",
    "PREVENTS",
    "PRECEDES",
    "FOLLOWS",
    "SIMULTANEOUS",
    "BACKGROUND_FOR",
    "GENERALIZES",
    "SPECIFIES",
    "COMPARES_WITH",
    "CONTRASTS_WITH",
    "SUPPLEMENTS",
    "REPLACES",
    "MOTIVATES",
    "JUSTIFIES",
    "UNRELATED",
)


@dataclass(frozen=True)
class Edge:
    """Chunk `source` serves chunk `target` as `label`; `confidence` is None when not scored."""

    source: int
    target: int
    label: str
    confidence: float | None = None


@dataclass
class RhetoricalGraph:
    """A validated directed graph over `n_nodes` chunks, with the name of what produced it."""

    n_nodes: int
    edges: list[Edge]
    producer: str
    metadata: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.edges = sorted(self.edges, key=lambda e: (e.source, e.target))
        self.validate()

    def validate(self) -> None:
        """Raise MalformedOutputError unless ids exist, labels are known and pairs are unique."""
        if self.n_nodes < 0:
            raise MalformedOutputError(f"A graph cannot have {self.n_nodes} nodes.", "Pass n_nodes >= 0.")
        seen: set[tuple[int, int]] = set()
        for edge in self.edges:
            pair = (edge.source, edge.target)
            if not (0 <= edge.source < self.n_nodes and 0 <= edge.target < self.n_nodes):
                raise MalformedOutputError(
                    f"Edge {edge.source} -> {edge.target} names a chunk outside 0..{self.n_nodes - 1}.",
                    "Chunk ids are 0-based positions in the retrieved list.",
                )
            if edge.source == edge.target:
                raise MalformedOutputError(
                    f"Edge {edge.source} -> {edge.target} is a self loop.", "Relate distinct chunks only."
                )
            if edge.label not in INTER_CHUNK:
                raise MalformedOutputError(
                    f"Label {edge.label!r} is not an inter-chunk relation.",
                    f"Use one of: {', '.join(INTER_CHUNK)}.",
                )
            if pair in seen:
                raise MalformedOutputError(
                    f"Pair {edge.source} -> {edge.target} has more than one label.",
                    "Give each ordered pair one label.",
                )
            seen.add(pair)

    def label(self, source: int, target: int) -> str:
        """The label of source -> target; a pair with no edge is UNRELATED."""
        for edge in self.edges:
            if (edge.source, edge.target) == (source, target):
                return edge.label
        return "UNRELATED"

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema_version": SCHEMA_VERSION,
            "producer": self.producer,
            "n_nodes": self.n_nodes,
            "edges": [
                {"source": e.source, "target": e.target, "label": e.label, "confidence": e.confidence}
                for e in self.edges
            ],
            "metadata": dict(self.metadata),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RhetoricalGraph:
        """Rebuild and validate; a wrong schema version or a broken graph raises MalformedOutputError."""
        if data.get("schema_version") != SCHEMA_VERSION:
            raise MalformedOutputError(
                f"Rhetorical graph schema version {data.get('schema_version')!r} is not {SCHEMA_VERSION}.",
                "Rebuild the cached graph with this version of the app.",
            )
        try:
            edges = [
                Edge(
                    int(e["source"]),
                    int(e["target"]),
                    str(e["label"]),
                    None if e.get("confidence") is None else float(e["confidence"]),
                )
                for e in data["edges"]
            ]
            return cls(int(data["n_nodes"]), edges, str(data["producer"]), dict(data.get("metadata", {})))
        except (KeyError, TypeError, ValueError) as exc:
            raise MalformedOutputError(
                f"Rhetorical graph dict is incomplete: {exc!r}.", "Check its fields."
            ) from None
