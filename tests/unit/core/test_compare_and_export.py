"""Evidence overlap between answers and the answer export, on hand-built answers."""

from __future__ import annotations

import json

import pytest

from backend.compare import evidence_overlap, evidence_spans
from backend.generation.answer import Answer, Citation, StageCost
from backend.reports.answer_export import answer_to_dict, answer_to_html, answer_to_json
from backend.retrieval.search import Passage


def _passage(doc: str, start: int, end: int, text: str = "text") -> Passage:
    return Passage(f"{doc}:{start}", doc, f"{doc}.md", text, start, end, ())


def _answer(*passages: Passage, **kwargs) -> Answer:
    return Answer("m", "Q?", "A [1].", list(passages), [], "test", **kwargs)


def test_spans_merge_per_document() -> None:
    spans = evidence_spans(_answer(_passage("d", 0, 10), _passage("d", 5, 20), _passage("e", 0, 4)))
    assert spans == {"d": [(0, 20)], "e": [(0, 4)]}


def test_overlap_is_jaccard_of_characters_read() -> None:
    a = _answer(_passage("d", 0, 100))
    b = _answer(_passage("d", 50, 150))
    c = _answer(_passage("other", 0, 100))
    matrix = evidence_overlap([a, b, c])
    assert matrix[0][0] == 1.0
    assert matrix[0][1] == matrix[1][0] == pytest.approx(50 / 150, abs=1e-3)
    assert matrix[0][2] == 0.0


HOSTILE = '<script>alert(1)</script><img src=x onerror=alert(2)> "quoted" & more'


def test_export_round_trips_and_html_is_inert_and_self_contained() -> None:
    passage = _passage("d", 0, 40, HOSTILE)
    cost = StageCost("generate", calls=1, prompt_tokens=90, completion_tokens=10, latency_s=0.5)
    answer = Answer(
        "disco_rag",
        "Why " + HOSTILE,
        "Because " + HOSTILE + " [1]",
        [passage],
        [Citation(1, passage)],
        "ollama:test",
        [cost],
        ["a warning " + HOSTILE],
        {"plan": {"text": HOSTILE, "producer": "ollama:test"}, "trajectory": [{"step": 1, "reply": HOSTILE}]},
    )
    data = json.loads(answer_to_json(answer))
    assert data["answer"]["structures"]["plan"]["text"] == HOSTILE
    assert data["answer"]["citations"][0]["chunk_id"] == "d:0"
    assert answer_to_dict(answer)["answer"]["total_tokens"] == 100
    page = answer_to_html(answer)
    assert "<script" not in page and "<img" not in page
    assert "&lt;script&gt;" in page and "Trajectory" in page and "Plan" in page
    assert "http://" not in page and "https://" not in page
