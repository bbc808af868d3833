"""A stand-in LLM for Disco-RAG unit tests: every reply is written by this class's rules, no model.

It recognises each stage by its system prompt and answers in that stage's format, built from the
text it was given (EDUs are the chunk's sentences, the graph relates each chunk to the next).
`broken` names stages whose replies are replaced by junk, to exercise the fallbacks.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from backend.discourse.graph_reader import GRAPH_SYSTEM
from backend.discourse.llm_rst_parser import RST_SYSTEM
from backend.generation.discourse_prompts import (
    MARKER_SYSTEM,
    PLAN_FIRST_SYSTEM,
    PLAN_THEN_ANSWER_SYSTEM,
    STRUCTURE_RULES,
)
from backend.generation.planner import PLAN_SYSTEM
from backend.ingest.segment import sentence_spans
from backend.llm.base import ChatMessage, Completion, ServiceStatus

JUNK = "I am not sure what you mean. Here is a poem about the sea instead."


def tree_reply(chunk: str) -> str:
    """EDUs = the chunk's sentences; a right-branching tree with the nucleus first."""
    sentences = [chunk[a:b] for a, b in sentence_spans(chunk)]
    lines = ["EDUS:", *(f"[{i}] {s}" for i, s in enumerate(sentences, start=1)), "TREE:"]
    n = len(sentences)
    for i in range(1, n):
        right = f"[{i + 1}]" if i + 1 == n else f"[{i + 1}-{n}]"
        lines.append(f"[{i}-{n}] = [{i}] N + {right} S : ELABORATION")
    return "\n".join([*lines, "END OF TREE"])


def pair_reply(numbers: Sequence[int], label_for: dict[str, str]) -> str:
    return "\n".join(
        f"CHUNK[{i}] -> CHUNK[{j}]: {label_for['next'] if j == i + 1 else label_for['other']}"
        for i, j in itertools.permutations(numbers, 2)
    )


@dataclass
class DiscourseLLM:
    """Implements the LLMClient protocol; `calls` counts requests per stage, `prompts` keeps their text."""

    label: str = "ollama:scripted-discourse"
    context_window: int = 8192
    broken: frozenset[str] = frozenset()
    calls: dict[str, int] = field(default_factory=dict)
    prompts: dict[str, list[str]] = field(default_factory=dict)

    def _stage(self, system: str) -> str:
        stages = {
            RST_SYSTEM: "tree",
            GRAPH_SYSTEM: "graph",
            MARKER_SYSTEM: "markers",
            PLAN_SYSTEM: "plan",
            PLAN_FIRST_SYSTEM: "plan_first",
            PLAN_THEN_ANSWER_SYSTEM: "plan_then_answer",
        }
        if system in stages:
            return stages[system]
        return "answer" if system.endswith(STRUCTURE_RULES) else "other"

    def _reply(self, stage: str, user: str) -> str:
        if stage in self.broken:
            return JUNK
        numbers = [int(n) for n in re.findall(r'<chunk number="(\d+)">', user)]
        if stage == "tree":
            return tree_reply(user.removeprefix("<chunk>\n").removesuffix("\n</chunk>"))
        if stage == "graph":
            return pair_reply(numbers, {"next": "ELABORATES", "other": "UNRELATED"}) + "\nEND OF GRAPH"
        if stage == "markers":
            return pair_reply(numbers, {"next": "moreover", "other": "NONE"})
        if stage == "plan":
            return "PLAN: Open with the figure from [1], then add the context of [2]."
        if stage == "plan_first":
            return "PLAN: State the cost, then compare.\nQUERIES:\n- price of an electric bus\n- diesel cost"
        if stage == "plan_then_answer":
            return "PLAN: Use [1] first.\nANSWER: An electric bus costs more than a diesel one [1]."
        if stage == "answer":
            return "An electric bus costs more than a diesel one [1]."
        return "TEAL"

    def chat(self, messages: Sequence[ChatMessage], **_: object) -> Completion:
        system = next((m.content for m in messages if m.role == "system"), "")
        user = messages[-1].content
        stage = self._stage(system)
        self.calls[stage] = self.calls.get(stage, 0) + 1
        self.prompts.setdefault(stage, []).append(user)
        text = self._reply(stage, user)
        return Completion(text, "scripted", self.count_tokens(system + user), self.count_tokens(text), 0.01)

    def complete(self, prompt: str, **_: object) -> Completion:
        self.calls["complete"] = self.calls.get("complete", 0) + 1
        return Completion(JUNK, "scripted", self.count_tokens(prompt), 12, 0.01)

    def count_tokens(self, text: str) -> int:
        return len(text.split())

    def status(self) -> ServiceStatus:
        return ServiceStatus(self.label, True, "scripted")
