"""The routing trajectory: every step the router took on one document, in a JSON-able form.

A step keeps what the router was shown (the view, which ids were visible and collapsed), what
it said (the raw reply), what was made of it (behaviours kept, pieces dropped and why) and what
changed (nodes answered, nodes lit by EXPAND). The trajectory viewer redraws the tree at each
step from these sets, so they are stored, not recomputed.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from backend.routing.structure_tree import StructureTree

TRAJECTORY_SCHEMA_VERSION = 1
STOP_REASONS = (
    "answered",  # the last step answered and asked for no further expansion
    "refused",  # the router refused
    "no progress",  # nothing usable: no valid behaviour and no refusal
    "expansion limit",  # EXPAND asked for beyond the maximum number of iterations
    "nothing to route",  # no content matched and no heading to open
    "call failed",  # the router's model call failed; the steps before it are kept
)


@dataclass
class RoutingStep:
    index: int
    view: str
    visible: list[str]
    collapsed: list[str]
    expanded: list[str]
    raw_reply: str
    behaviours: list[dict[str, str]]
    dropped: list[dict[str, str]]
    refused: bool
    usable: bool
    answered: list[str]
    lit_by_expand: list[str]
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency_s: float = 0.0
    error: str = ""
    """Why the router's call failed (the reply is then empty and nothing was decided)."""


@dataclass
class DocumentRoute:
    """One document's routing: its tree, the initial lighting, the steps, what was read."""

    doc_id: str
    doc_name: str
    tree: StructureTree
    router: str
    matched: list[str]
    initially_lit: list[str]
    steps: list[RoutingStep] = field(default_factory=list)
    answered: list[str] = field(default_factory=list)
    stop_reason: str = "nothing to route"

    @property
    def calls(self) -> int:
        return len(self.steps)

    @property
    def unusable_replies(self) -> int:
        """Replies that came back but said nothing usable (failed calls are not replies)."""
        return sum(not s.usable and not s.error for s in self.steps)

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema_version": TRAJECTORY_SCHEMA_VERSION,
            "doc_id": self.doc_id,
            "doc_name": self.doc_name,
            "tree": self.tree.to_dict(),
            "router": self.router,
            "matched": list(self.matched),
            "initially_lit": list(self.initially_lit),
            "steps": [asdict(s) for s in self.steps],
            "answered": list(self.answered),
            "stop_reason": self.stop_reason,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> DocumentRoute:
        if data.get("schema_version") != TRAJECTORY_SCHEMA_VERSION:
            raise ValueError(f"trajectory schema {data.get('schema_version')!r}")
        route = cls(
            doc_id=data["doc_id"],
            doc_name=data["doc_name"],
            tree=StructureTree.from_dict(data["tree"]),
            router=data["router"],
            matched=list(data["matched"]),
            initially_lit=list(data["initially_lit"]),
            steps=[RoutingStep(**s) for s in data["steps"]],
            answered=list(data["answered"]),
            stop_reason=data["stop_reason"],
        )
        route.validate()
        return route

    def validate(self) -> None:
        """Every id a step names exists in the tree; answers are content; the stop reason is known."""
        nodes = self.tree.nodes
        if self.stop_reason not in STOP_REASONS:
            raise ValueError(f"unknown stop reason {self.stop_reason!r}")
        named = [*self.matched, *self.initially_lit, *self.answered]
        for step in self.steps:
            named += [*step.visible, *step.collapsed, *step.expanded, *step.answered, *step.lit_by_expand]
            named += [b["id"] for b in step.behaviours]
        unknown = sorted({i for i in named if i not in nodes})
        if unknown:
            raise ValueError(f"trajectory names ids missing from the tree: {unknown[:5]}")
        if any(nodes[i].type != "content" for i in self.answered):
            raise ValueError("an answered node is not content")


@dataclass
class RoutingRecord:
    """What `Answer.structures["trajectory"]` holds: who routed, with which switches, per document."""

    router: str
    reason: str
    max_expansions: int
    allow_expand: bool
    allow_refuse: bool
    use_structure: bool
    routes: list[DocumentRoute] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        data = {k: v for k, v in vars(self).items() if k != "routes"}
        routes = [r.to_dict() for r in self.routes]
        return data | {"schema_version": TRAJECTORY_SCHEMA_VERSION, "routes": routes}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RoutingRecord:
        if data.get("schema_version") != TRAJECTORY_SCHEMA_VERSION:
            raise ValueError(f"trajectory schema {data.get('schema_version')!r}")
        fields = {k: v for k, v in data.items() if k not in ("schema_version", "routes")}
        return cls(**fields, routes=[DocumentRoute.from_dict(r) for r in data["routes"]])
