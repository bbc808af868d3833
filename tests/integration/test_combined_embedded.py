"""The combined pipeline end to end on the real parts: MiniLM, embedded Chroma, embedded Gemma 270M.

"auto" mode with the base model: merge-only discourse trees, the offline router and the trained
structure producers build every stage; the test checks the stages run in order, each leaves the
record its viewer reads, the routed passages come from the evidence's documents, and the answer
cites only passages it was given. Not that the answer is good (a base model writes it).
"""

from __future__ import annotations

import json

import pytest

from backend.config import Settings
from backend.discourse.rhetorical_graph import RhetoricalGraph
from backend.discourse.rst_tree import RSTTree
from backend.routing.trajectory import RoutingRecord
from backend.studio import Studio
from tests.conftest import SAMPLES

pytestmark = pytest.mark.integration

QUESTION = "How much does winter cold reduce the range of the electric buses?"
STAGES = ["build trees", "retrieve", "route", "cap passages", "parse trees", "graph", "plan", "generate"]


@pytest.fixture(scope="module")
def studio(tmp_path_factory: pytest.TempPathFactory) -> Studio:
    settings = Settings(data_dir=tmp_path_factory.mktemp("combined"), llm_max_tokens=40, top_k=3)
    studio = Studio(settings)
    for path in sorted(SAMPLES.iterdir()):
        studio.indexer.index_file(path.read_bytes(), path.name)
    return studio


def test_every_stage_runs_and_leaves_its_record(studio: Studio) -> None:
    answer = studio.ask("combined", QUESTION)
    assert answer.method == "combined"
    assert [c.stage for c in answer.costs] == STAGES
    structures = json.loads(json.dumps(answer.structures))
    assert set(structures) == {"discourse_selection", "trajectory", "rst_trees", "rhetorical_graph", "plan"}

    selection = structures["discourse_selection"]
    evidence_docs = {tree["doc_id"] for tree in selection["trees"]}
    assert selection["method"] == "disretrieval" and evidence_docs
    assert "Merge-only" in selection["structure_reason"]

    record = RoutingRecord.from_dict(structures["trajectory"])
    assert record.router.startswith("offline router")
    assert {route.doc_id for route in record.routes} <= evidence_docs

    assert 1 <= len(answer.passages) <= 3, "routed passages are capped at k before the trees"
    assert {p.doc_id for p in answer.passages} <= evidence_docs
    assert len(structures["rst_trees"]) == len(answer.passages)
    for tree in structures["rst_trees"]:
        RSTTree.from_dict(tree["tree"])
    graph = RhetoricalGraph.from_dict(structures["rhetorical_graph"]["graph"])
    n = len(answer.passages)
    assert len(graph.edges) == n * (n - 1)
    for citation in answer.citations:
        assert citation.passage is answer.passages[citation.number - 1]
    assert answer.costs[-1].calls == 1 and answer.costs[2].calls == 0, "routing spent no model call"


def test_the_second_question_reuses_trees_and_chunk_parses(studio: Studio) -> None:
    studio.ask("combined", QUESTION)
    again = studio.ask("combined", QUESTION)
    build, parse = again.costs[0], again.costs[4]
    assert build.cache_hits >= 1 and build.calls == 0
    assert parse.cache_hits == len(again.passages)
