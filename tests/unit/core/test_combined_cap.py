"""The combined pipeline's cap on routed passages: the closest to the question, in reading order."""

from __future__ import annotations

from backend.pipelines.combined import closest_passages
from backend.retrieval.embedder import get_embedder
from backend.retrieval.search import Passage

TEXTS = [
    "The committee met on a Tuesday in the town hall.",
    "Winter cold cut the electric buses' range by a third.",
    "Lunch was served at noon.",
    "Battery heaters keep the range loss in cold weather under twenty percent.",
]


def passages() -> list[Passage]:
    return [Passage(f"c{i}", "d", "doc", text, i * 100, i * 100 + 50, ()) for i, text in enumerate(TEXTS)]


def test_keeps_the_most_similar_passages_in_reading_order() -> None:
    kept, dropped = closest_passages("How does cold weather affect bus range?", passages(), get_embedder(), 2)
    assert [p.chunk_id for p in kept] == ["c1", "c3"] and dropped == 2


def test_under_the_limit_everything_is_kept() -> None:
    kept, dropped = closest_passages("anything", passages(), get_embedder(), 4)
    assert [p.chunk_id for p in kept] == ["c0", "c1", "c2", "c3"] and dropped == 0
