"""Read a router reply into behaviours, tolerantly, and record everything that was dropped.

Accepted forms, in any case, anywhere in the reply: `[ANSWER] 12`, `[ANSWER] 12, 14 and 15`,
`[ANSWER] 12: the text prefix`, `ANSWER: #12`, `<expand>4</expand>`, `[EXPAND] node 4`, and a
refusal (`[REFUSE]`, "Cannot answer", "unable to answer"). The ids after a tag run until the
first word that is not an id, so numbers inside a quoted text prefix are never taken for ids.
A behaviour survives only if its id is one the view offers: ANSWER a visible content node,
EXPAND a collapsed heading. Everything else is kept in `dropped` with the reason.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any, Literal

BehaviourKind = Literal["answer", "expand"]

_ID = r"(?:(?:id|node|n|p)[ \t]*)?#?\d+"
_TAG = re.compile(
    r"(?:\[\s*(?P<b>answer|expand)\s*\]|<\s*(?P<x>answer|expand)\s*>|\b(?P<w>answer|expand)\b)"
    r"[ \t]*[:=\-]?[ \t]*(?P<ids>" + _ID + r"(?:[ \t]*(?:,|;|&|\band\b|[ \t])[ \t]*" + _ID + r")*)?",
    re.IGNORECASE,
)
_ONE_ID = re.compile(r"\d+")
_REFUSAL = re.compile(
    r"\[\s*refuse\s*\]|<\s*refuse\s*>|\bcannot\s+answer\b|\bcan\s*not\s+answer\b|\bcan't\s+answer\b"
    r"|\bunable\s+to\s+answer\b|\brefuse\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Behaviour:
    kind: BehaviourKind
    node_id: str

    def render(self) -> str:
        return f"[{self.kind.upper()}] {self.node_id}"


@dataclass(frozen=True)
class Dropped:
    """A piece of the reply that was not used, and why (shown in the trajectory viewer)."""

    text: str
    reason: str


@dataclass(frozen=True)
class ParsedReply:
    behaviours: tuple[Behaviour, ...]
    dropped: tuple[Dropped, ...]
    refused: bool

    @property
    def usable(self) -> bool:
        """The reply said something the loop can act on: a valid behaviour or a refusal."""
        return bool(self.behaviours) or self.refused

    def answers(self) -> list[str]:
        return [b.node_id for b in self.behaviours if b.kind == "answer"]

    def expands(self) -> list[str]:
        return [b.node_id for b in self.behaviours if b.kind == "expand"]

    def to_dict(self) -> dict[str, Any]:
        return {
            "behaviours": [{"kind": b.kind, "id": b.node_id} for b in self.behaviours],
            "dropped": [{"text": d.text, "reason": d.reason} for d in self.dropped],
            "refused": self.refused,
        }


def parse_router_reply(
    reply: str,
    *,
    visible: Collection[str],
    collapsed: Collection[str],
    known: Collection[str],
    allow_expand: bool = True,
    allow_refuse: bool = True,
    expand_off_reason: str = "expansion is switched off for this run",
) -> ParsedReply:
    """Behaviours in reply order, without duplicates; never raises on any text."""
    behaviours: list[Behaviour] = []
    dropped: list[Dropped] = []
    for match in _TAG.finditer(reply):
        kind: BehaviourKind = (match.group("b") or match.group("x") or match.group("w")).lower()  # type: ignore[assignment]
        ids = _ONE_ID.findall(match.group("ids") or "")
        if not ids:
            if match.group("b") or match.group("x"):
                dropped.append(Dropped(match.group(0).strip(), f"[{kind.upper()}] names no id"))
            continue
        for raw in ids:
            node_id = str(int(raw))
            reason = _why_invalid(kind, node_id, visible, collapsed, known, allow_expand, expand_off_reason)
            behaviour = Behaviour(kind, node_id)
            if reason is None and behaviour in behaviours:
                reason = "duplicate"
            if reason is None:
                behaviours.append(behaviour)
            else:
                dropped.append(Dropped(behaviour.render(), reason))
    refusal = _REFUSAL.search(reply)
    refused = False
    if refusal is not None:
        if not allow_refuse:
            dropped.append(Dropped(refusal.group(0), "refusal is switched off for this run"))
        elif behaviours:
            dropped.append(Dropped(refusal.group(0), "refusal ignored: the reply also has valid behaviours"))
        else:
            refused = True
    if not behaviours and not refused and not dropped:
        snippet = " ".join(reply.split())[:120]
        dropped.append(Dropped(snippet or "(empty reply)", "no behaviour or refusal found"))
    return ParsedReply(tuple(behaviours), tuple(dropped), refused)


def _why_invalid(
    kind: BehaviourKind,
    node_id: str,
    visible: Collection[str],
    collapsed: Collection[str],
    known: Collection[str],
    allow_expand: bool,
    expand_off_reason: str,
) -> str | None:
    if node_id not in known:
        return "unknown id"
    if kind == "answer":
        if node_id in visible:
            return None
        return "a heading cannot be an answer" if node_id in collapsed else "not a visible paragraph"
    if not allow_expand:
        return expand_off_reason
    return None if node_id in collapsed else "not a collapsed heading"


def format_behaviours(behaviours: list[Behaviour], refused: bool = False) -> str:
    """The canonical reply text (what the offline router emits and curated examples store)."""
    if refused or not behaviours:
        return "Cannot answer"
    return "\n".join(b.render() for b in behaviours)
