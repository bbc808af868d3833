"""One chunk's RST tree and how it came to be: the record every chunk-tree producer returns.

Disco-RAG parses each retrieved chunk into an RST tree. An LLM may build it, or the trained
sentence-level parser may (the offline producer, and the fallback when an LLM reply cannot be
read). Either way the caller gets a `ChunkParse`: the validated tree plus a `ParseOutcome` that
says who was asked, who produced the tree that is kept, what was repaired and why a fallback
happened, so the UI can show it. Trees are over the chunk's own text: unit offsets are
character offsets into the chunk.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Literal, Protocol

from backend.discourse.parser import PRODUCER, SentenceRSTParser
from backend.discourse.rst_tree import RSTNode, RSTTree, Unit
from backend.errors import ConfigError
from backend.ingest.segment import sentence_spans
from backend.llm.base import Completion

TRAINED_PRODUCER = PRODUCER
FLAT_PRODUCER = "flat tree (no parser available)"

Status = Literal["parsed", "repaired", "fallback"]


@dataclass(frozen=True)
class ParseOutcome:
    """`requested` was asked for the tree; `producer` built the one kept (they differ on fallback).

    `call_failed` marks a fallback forced by a failed or empty model call rather than by an
    unreadable reply: that may pass, so such a parse is never cached.
    """

    status: Status
    requested: str
    producer: str
    repairs: tuple[str, ...] = ()
    fallback_reason: str = ""
    call_failed: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "requested": self.requested,
            "producer": self.producer,
            "repairs": list(self.repairs),
            "fallback_reason": self.fallback_reason,
            "call_failed": self.call_failed,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ParseOutcome:
        return cls(
            data["status"],
            str(data["requested"]),
            str(data["producer"]),
            tuple(str(r) for r in data.get("repairs", ())),
            str(data.get("fallback_reason", "")),
            bool(data.get("call_failed", False)),
        )


@dataclass
class ChunkParse:
    """A chunk's tree, its outcome, and the model calls it cost (empty when trained or cached)."""

    tree: RSTTree
    outcome: ParseOutcome
    completions: list[Completion] = field(default_factory=list)


class ChunkParser(Protocol):
    """Anything that turns a chunk's text into a ChunkParse; `key` names it in cache keys."""

    @property
    def key(self) -> str: ...

    def parse(self, text: str) -> ChunkParse: ...


@lru_cache(maxsize=1)
def _sentence_parser() -> SentenceRSTParser:
    """Loaded once per process: it embeds with the bundled MiniLM it was trained on."""
    return SentenceRSTParser.load_default()


def sentence_units(text: str) -> list[Unit]:
    """The chunk's sentences with offsets into it; a chunk with no sentence is one unit."""
    spans = sentence_spans(text) or [(0, len(text))]
    return [Unit(text[a:b], a, b) for a, b in spans]


def flat_tree(units: list[Unit], producer: str = FLAT_PRODUCER) -> RSTTree:
    """Right-branching multinuclear JOINT: claims no structure beyond reading order."""
    n = len(units)
    nodes = [RSTNode(i, i, n - 1, "NN", "JOINT") for i in range(n - 1)]
    return RSTTree(units, nodes, producer, "disco-rag-intra")


class TrainedChunkParser:
    """The trained sentence-level parser over a chunk's sentences; a flat tree if it cannot load.

    The cache key is the weights' producer name, so new weights never read trees cached by old ones.
    """

    key = PRODUCER

    def __init__(self, parser: SentenceRSTParser | None = None) -> None:
        self._parser = parser

    def _loaded(self) -> SentenceRSTParser:
        if self._parser is None:
            self._parser = _sentence_parser()
        return self._parser

    def parse(self, text: str) -> ChunkParse:
        units = sentence_units(text)
        if len(units) == 1:
            tree = RSTTree(units, [], TRAINED_PRODUCER)
            return ChunkParse(tree, ParseOutcome("parsed", TRAINED_PRODUCER, TRAINED_PRODUCER))
        try:
            parsed = self._loaded().parse([u.text for u in units])
        except ConfigError as error:
            reason = f"the trained parser is unavailable ({error.what})"
            outcome = ParseOutcome("fallback", TRAINED_PRODUCER, FLAT_PRODUCER, (), reason)
            return ChunkParse(flat_tree(units), outcome)
        tree = RSTTree(units, parsed.nodes, TRAINED_PRODUCER, parsed.label_set)
        return ChunkParse(tree, ParseOutcome("parsed", TRAINED_PRODUCER, TRAINED_PRODUCER))
