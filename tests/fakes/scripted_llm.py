"""A stand-in LLM for unit tests: replies are hand-written by the test, never produced by a model."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from backend.llm.base import ChatMessage, Completion, ServiceStatus


@dataclass
class ScriptedLLM:
    """Answers every prompt with `reply`, or with `reply(prompt)` when it is a function; records prompts."""

    reply: str | Callable[[str], str]
    label: str = "ollama:scripted"
    context_window: int = 4096
    prompts: list[str] = field(default_factory=list)

    def _answer(self, prompt: str) -> Completion:
        self.prompts.append(prompt)
        text = self.reply(prompt) if callable(self.reply) else self.reply
        return Completion(text, "scripted", self.count_tokens(prompt), self.count_tokens(text), 0.01)

    def chat(self, messages: Sequence[ChatMessage], **_: object) -> Completion:
        return self._answer(messages[-1].content)

    def complete(self, prompt: str, **_: object) -> Completion:
        return self._answer(prompt)

    def count_tokens(self, text: str) -> int:
        return len(text.split())

    def status(self) -> ServiceStatus:
        return ServiceStatus(self.label, True, "scripted")
