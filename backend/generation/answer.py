"""What every method returns: an answer, its citations, the passages read and what it cost."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from backend.llm.base import Completion
from backend.retrieval.search import Passage


@dataclass(frozen=True)
class Citation:
    """A `[n]` marker in the answer resolved to the passage it names.

    `source` says who put the marker there: the model, the studio's similarity attribution, or
    the extractive answerer (the sentence was copied from that passage).
    """

    number: int
    passage: Passage
    source: Literal["model", "attributed", "extractive"] = "model"
    similarity: float | None = None


@dataclass
class StageCost:
    stage: str
    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency_s: float = 0.0
    retries: int = 0
    cache_hits: int = 0

    def add(self, completion: Completion) -> None:
        self.calls += 1
        self.retries += completion.retries
        self.prompt_tokens += completion.prompt_tokens
        self.completion_tokens += completion.completion_tokens
        self.latency_s += completion.latency_s


@dataclass
class Answer:
    method: str
    question: str
    text: str
    passages: list[Passage]
    citations: list[Citation]
    producer: str
    costs: list[StageCost] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    structures: dict[str, Any] = field(default_factory=dict)
    """What a method built on the way (RST trees, a rhetorical graph, a plan, a routing trajectory,
    selected tree nodes), keyed by a name that components/answer_structures.py knows how to draw."""
    failed_stage: str = ""
    """The stage whose model call failed and ended the run early: the text is then empty, and the
    structures are those built before it. Empty for a complete answer."""

    @property
    def failure(self) -> str:
        """Why the answer is an error rather than an empty answer ("" when it is complete); the
        failing stage adds its warning last."""
        if not self.failed_stage:
            return ""
        return self.warnings[-1] if self.warnings else f"The {self.failed_stage} stage failed."

    @property
    def total_tokens(self) -> int:
        return sum(c.prompt_tokens + c.completion_tokens for c in self.costs)

    @property
    def total_latency_s(self) -> float:
        return sum(c.latency_s for c in self.costs)
