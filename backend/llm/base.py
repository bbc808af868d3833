"""The one small interface every language-model backend implements."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, Protocol, runtime_checkable

Role = Literal["system", "user", "assistant"]


@dataclass(frozen=True)
class ChatMessage:
    role: Role
    content: str


@dataclass(frozen=True)
class Completion:
    """A reply plus what it cost, so every stage can account for calls, tokens and time."""

    text: str
    model: str
    prompt_tokens: int
    completion_tokens: int
    latency_s: float
    finish_reason: str = ""
    retries: int = 0


@dataclass(frozen=True)
class ServiceStatus:
    """Whether a backing service answers, shown in the sidebar."""

    name: str
    ok: bool
    detail: str


@runtime_checkable
class LLMClient(Protocol):
    """Chat and plain completion with token counts and latency."""

    @property
    def label(self) -> str:
        """`backend:model`, shown in the UI and used in cache keys."""

    @property
    def context_window(self) -> int:
        """Tokens the model accepts, prompt and reply together."""

    def chat(
        self,
        messages: Sequence[ChatMessage],
        *,
        max_tokens: int | None = None,
        temperature: float | None = None,
        stop: Sequence[str] | None = None,
    ) -> Completion: ...

    def complete(
        self,
        prompt: str,
        *,
        max_tokens: int | None = None,
        temperature: float | None = None,
        stop: Sequence[str] | None = None,
    ) -> Completion: ...

    def count_tokens(self, text: str) -> int:
        """Exact where the backend can tokenize locally, else a documented estimate."""

    def status(self) -> ServiceStatus: ...
