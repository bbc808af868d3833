"""The one table of answering methods; the method picker, benchmarks and tests all read it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar, Protocol

from backend.config import Settings
from backend.errors import ConfigError
from backend.generation.answer import Answer
from backend.library import Library
from backend.llm.base import LLMClient
from backend.retrieval.embedder import Embedder
from backend.retrieval.store import VectorStore


@dataclass
class RunContext:
    """Everything a method may use; `doc_ids` None means the whole library."""

    settings: Settings
    llm: LLMClient
    embedder: Embedder
    store: VectorStore
    library: Library
    doc_ids: Sequence[str] | None = None

    def selected_ids(self) -> list[str]:
        return list(self.doc_ids) if self.doc_ids is not None else self.library.ids()


class Method(Protocol):
    name: ClassVar[str]
    title: ClassVar[str]
    description: ClassVar[str]

    def run(self, question: str, ctx: RunContext) -> Answer: ...


_METHODS: dict[str, type[Method]] = {}


def register(cls: type[Method]) -> type[Method]:
    if cls.name in _METHODS:
        raise ValueError(f"method {cls.name!r} is registered twice")
    _METHODS[cls.name] = cls
    return cls


def method_names() -> list[str]:
    return list(_METHODS)


def get_method(name: str) -> Method:
    try:
        return _METHODS[name]()
    except KeyError:
        raise ConfigError(
            f"Unknown method {name!r}.", f"Choose one of: {', '.join(sorted(_METHODS))}."
        ) from None
