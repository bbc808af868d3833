"""The extractive method end to end: real MiniLM, real Chroma, the trained RST parser, no LLM call."""

from __future__ import annotations

import re

import pytest

from backend.config import Settings
from backend.studio import Studio
from tests.conftest import SAMPLES

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def studio(tmp_path_factory: pytest.TempPathFactory) -> Studio:
    studio = Studio(Settings(data_dir=tmp_path_factory.mktemp("data")))
    for path in sorted(SAMPLES.iterdir()):
        studio.indexer.index_file(path.read_bytes(), path.name)
    return studio


def test_extractive_answer_copies_cited_sentences(studio: Studio) -> None:
    answer = studio.ask("extractive", "How much did the electric buses cost?")
    assert answer.method == "extractive" and answer.text
    assert "trained-sentence-parser" in answer.producer
    assert [c.stage for c in answer.costs] == ["retrieve", "select sentences"]
    assert answer.total_tokens == 0  # no model call
    pieces = re.findall(r"(.+?) \[(\d+)\]\s*", answer.text)
    assert pieces and sum(len(s.split()) for s, _ in pieces) <= 120
    for sentence, number in pieces:
        assert sentence.strip() in answer.passages[int(number) - 1].text
    assert {c.number for c in answer.citations} == {int(n) for _, n in pieces}
    assert all(c.source == "extractive" for c in answer.citations)
