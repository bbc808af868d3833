"""Fixtures for routing tests."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from backend.retrieval.search import Passage


@pytest.fixture
def make_passage() -> Callable[..., Passage]:
    def make(chunk_id: str, text: str, start: int = 0, end: int = 0, doc_id: str = "d") -> Passage:
        return Passage(chunk_id, doc_id, f"{doc_id}.md", text, start, end or start + len(text), ())

    return make
