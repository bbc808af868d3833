"""A studio stand-in for page tests of background jobs: one document, and an LLM that parses its
chunk trees only as fast as the test lets it, so progress can be read at known counts."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from backend.config import Settings
from backend.ingest.build import build_document
from backend.ingest.document import Document
from backend.ingest.loaders import load_file
from backend.llm.base import ChatMessage, Completion
from backend.llm.capability import StructureChoice, choose_structure_llm
from tests.fakes.discourse_llm import DiscourseLLM

GATE_TIMEOUT_S = 30.0
"""A parse left waiting this long fails, so a broken test cannot leave a thread blocked for good."""


@dataclass
class GatedLLM(DiscourseLLM):
    """Each call waits for a permit from `let_through`; call number `fail_on_call` raises instead."""

    fail_on_call: int | None = None
    gate: threading.Semaphore = field(default_factory=lambda: threading.Semaphore(0))
    answered: int = 0

    def let_through(self, calls: int) -> None:
        self.gate.release(calls)

    def chat(self, messages: Sequence[ChatMessage], **options: object) -> Completion:
        if not self.gate.acquire(timeout=GATE_TIMEOUT_S):
            raise TimeoutError("the test never let this call through")
        self.answered += 1
        if self.answered == self.fail_on_call:
            raise RuntimeError("the parser model crashed")
        return super().chat(messages, **options)


@dataclass
class OneDocumentLibrary:
    doc: Document

    def get(self, doc_id: str) -> Document:
        assert doc_id == self.doc.id
        return self.doc


@dataclass
class GatedStudio:
    """What the pre-parse panel uses of a `Studio`: settings, the LLM, the library, the producer."""

    settings: Settings
    llm: GatedLLM
    library: OneDocumentLibrary

    def structure_choice(self) -> StructureChoice:
        return choose_structure_llm(self.settings, self.llm)


def gated_studio(data_dir: Path, paragraphs: int = 5) -> GatedStudio:
    """A studio whose one document ("buses") has one chunk per paragraph, parsed by a `GatedLLM`."""
    text = "\n\n".join(
        f"Route {i} got electric buses. They cost more to buy. But they are cheaper to run."
        for i in range(paragraphs)
    )
    data = text.encode()
    doc = build_document(
        load_file(data, "buses.txt", max_bytes=10**6),
        doc_id="buses",
        name="buses.txt",
        size_bytes=len(data),
        count_tokens_many=lambda texts: [len(t.split()) for t in texts],
        chunk_tokens=16,
    )
    settings = Settings(data_dir=data_dir, structure_producer="llm")
    return GatedStudio(settings, GatedLLM(), OneDocumentLibrary(doc))
