"""RDR2 end to end on the embedded defaults: real MiniLM, real Chroma, real embedded Gemma 3 270M.

"auto" mode: the base model fails the capability check, so the offline router routes and the
record says so. "llm" mode: the base model routes anyway; its replies are mostly junk, so the
test asserts the loop completes, records every raw reply and what was dropped, falls back to the
retrieved passages when nothing usable came back, and still returns a well-formed answer.
"""

from __future__ import annotations

import json

import pytest

from backend.config import Settings
from backend.routing.trajectory import RoutingRecord
from backend.studio import Studio
from tests.conftest import SAMPLES

pytestmark = pytest.mark.integration

QUESTION = "How much does winter cold reduce the range of the electric buses?"


@pytest.fixture(scope="module")
def studio(tmp_path_factory: pytest.TempPathFactory) -> Studio:
    studio = Studio(Settings(data_dir=tmp_path_factory.mktemp("rdr2"), llm_max_tokens=48, top_k=3))
    sample = SAMPLES / "electric-buses-report.md"
    studio.indexer.index_file(sample.read_bytes(), sample.name)
    return studio


def check_answer_shape(answer, method: str) -> RoutingRecord:
    assert answer.method == method
    assert [c.stage for c in answer.costs] == ["retrieve", "route", "generate"]
    assert answer.passages, "the reader always gets passages"
    for citation in answer.citations:
        assert citation.passage is answer.passages[citation.number - 1]
    record = RoutingRecord.from_dict(json.loads(json.dumps(answer.structures["trajectory"])))
    assert record.routes and all(r.tree.producer == "markdown headings" for r in record.routes)
    return record


def test_auto_mode_routes_offline_and_reads_paragraphs(studio: Studio) -> None:
    answer = studio.ask("rdr2", QUESTION)
    record = check_answer_shape(answer, "rdr2")
    assert record.router.startswith("offline router (bundled:all-MiniLM-L6-v2")
    assert "Trained producers" in record.reason
    assert any("offline router" in w for w in answer.warnings)
    route = record.routes[0]
    assert route.steps and all(s.usable for s in route.steps)
    assert answer.costs[1].calls == 0  # no model call was spent on routing
    routed = [p for r in record.routes for p in r.answered]
    if routed:  # the offline router chose paragraphs: those are what the reader read
        assert all(p.chunk_id.split(":")[1].startswith("p") for p in answer.passages)
        assert any(
            "Winter range" in r.tree.node(r.tree.heading_of(n)).text
            for r in record.routes
            for n in r.answered
        )


def test_llm_mode_parses_the_base_models_replies_and_records_them(studio: Studio) -> None:
    llm_studio = Studio(studio.settings.updated(structure_producer="llm"))
    answer = llm_studio.ask("rdr2", QUESTION)
    record = check_answer_shape(answer, "rdr2")
    assert record.router == "llm router (embedded:gemma-3-270m (base))"
    steps = [s for r in record.routes for s in r.steps]
    assert steps and all(s.raw_reply is not None for s in steps)
    assert answer.costs[1].calls == len(steps) and answer.costs[1].prompt_tokens > 100
    for step in steps:
        assert step.usable == bool(step.behaviours or step.refused)
        if not step.usable:
            assert step.dropped, "an unusable reply says why"
    unusable = sum(not s.usable for s in steps)
    if unusable:
        assert any("unusable" in w for w in answer.warnings)
    if not any(r.answered for r in record.routes):
        assert any("reads the retrieved passages instead" in w for w in answer.warnings)


@pytest.mark.parametrize("method", ["rdr2_no_expand", "rdr2_no_refuse", "rdr2_no_structure"])
def test_ablations_complete_offline(studio: Studio, method: str) -> None:
    answer = studio.ask(method, QUESTION)
    record = check_answer_shape(answer, method) if method != "rdr2_no_structure" else None
    if method == "rdr2_no_structure":
        record = RoutingRecord.from_dict(answer.structures["trajectory"])
        assert not record.use_structure
        assert all(r.tree.producer.startswith("no structure") for r in record.routes)
        assert all(p.chunk_id.split(":")[1].startswith("c") for p in answer.passages)
    elif method == "rdr2_no_expand":
        assert all(
            s.collapsed == [] or not any(b["kind"] == "expand" for b in s.behaviours)
            for r in record.routes
            for s in r.steps
        )
    else:
        assert all(not s.refused for r in record.routes for s in r.steps)
