"""Standard RAG and full-context end to end: real MiniLM, real Chroma, real embedded Gemma."""

from __future__ import annotations

import pytest

from backend.config import Settings
from backend.studio import Studio
from tests.conftest import SAMPLES

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def studio(tmp_path_factory: pytest.TempPathFactory) -> Studio:
    studio = Studio(Settings(data_dir=tmp_path_factory.mktemp("data"), llm_max_tokens=60))
    for path in sorted(SAMPLES.iterdir()):
        studio.indexer.index_file(path.read_bytes(), path.name)
    return studio


def test_standard_rag_answers_with_passages_and_costs(studio: Studio) -> None:
    answer = studio.ask("standard_rag", "How much did the electric buses cost?")
    assert answer.text
    assert len(answer.passages) == studio.settings.top_k
    scores = [p.score for p in answer.passages]
    assert scores == sorted(scores, reverse=True)
    generate = answer.costs[-1]
    assert generate.stage == "generate" and generate.calls == 1
    assert generate.prompt_tokens > 100 and generate.completion_tokens > 0
    assert answer.producer.startswith("embedded:")
    for citation in answer.citations:
        assert citation.passage is answer.passages[citation.number - 1]


def test_standard_rag_can_be_limited_to_one_document(studio: Studio) -> None:
    target = studio.library.summaries()[0]
    answer = studio.ask("standard_rag", "What is the main finding?", [target.id])
    assert {p.doc_id for p in answer.passages} == {target.id}


def test_full_context_truncates_with_a_warning(
    tmp_path_factory: pytest.TempPathFactory, studio: Studio
) -> None:
    small = Studio(
        studio.settings.updated(data_dir=tmp_path_factory.mktemp("small"), llm_context_tokens=1024)
    )
    for path in sorted(SAMPLES.iterdir()):
        small.indexer.index_file(path.read_bytes(), path.name)
    answer = small.ask("full_context", "Summarise the report.")
    assert any("Truncated" in w for w in answer.warnings)
    total = sum(s.chunks for s in small.library.summaries())
    assert 0 < len(answer.passages) < total
    assert answer.costs[0].prompt_tokens <= 1024
