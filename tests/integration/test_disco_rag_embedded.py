"""Disco-RAG end to end on the real parts: MiniLM, embedded Chroma and the embedded Gemma 270M.

The embedded model is a base model that does not follow instructions, so these tests check that
the pipeline completes, records who built each structure and why anything fell back, counts its
costs and returns a well-formed cited answer; not that the answer or the plan is good.
"""

from __future__ import annotations

import pytest

from backend.config import Settings
from backend.discourse.chunk_parse import TRAINED_PRODUCER
from backend.discourse.rhetorical_graph import RhetoricalGraph
from backend.discourse.rst_tree import RSTTree
from backend.llm.embedded import EMBEDDED_LABEL
from backend.studio import Studio
from tests.conftest import SAMPLES

pytestmark = pytest.mark.integration
QUESTION = "How much did the electric buses cost?"


@pytest.fixture(scope="module")
def studio(tmp_path_factory: pytest.TempPathFactory) -> Studio:
    settings = Settings(
        data_dir=tmp_path_factory.mktemp("data"), llm_max_tokens=40, top_k=3, chunk_tokens=128
    )
    studio = Studio(settings)
    for path in sorted(SAMPLES.iterdir()):
        studio.indexer.index_file(path.read_bytes(), path.name)
    return studio


def _check_answer(answer, k: int) -> None:
    assert len(answer.passages) == k and answer.producer == EMBEDDED_LABEL
    for citation in answer.citations:
        assert citation.passage is answer.passages[citation.number - 1]
    generate = answer.costs[-1]
    assert generate.stage == "generate" and generate.calls == 1 and generate.prompt_tokens > 100
    for record in answer.structures["rst_trees"]:
        RSTTree.from_dict(record["tree"])
    graph = RhetoricalGraph.from_dict(answer.structures["rhetorical_graph"]["graph"])
    assert len(graph.edges) == k * (k - 1)


def test_auto_mode_uses_the_trained_producers_with_the_embedded_model(studio: Studio) -> None:
    answer = studio.ask("disco_rag", QUESTION)
    _check_answer(answer, 3)
    assert [c.stage for c in answer.costs] == ["retrieve", "parse trees", "graph", "plan", "generate"]
    trees = answer.structures["rst_trees"]
    assert {r["producer"] for r in trees} == {TRAINED_PRODUCER}
    assert all(r["choice"].startswith("Trained producers") for r in trees), "the choice is shown"
    graph = answer.structures["rhetorical_graph"]
    assert graph["producer"] == "relation-classifier:gum-v1" and not graph["fallback_reason"]
    assert answer.costs[1].calls == 0 and answer.costs[2].calls == 0, "no LLM call builds structure"
    assert answer.structures["plan"]["producer"] == EMBEDDED_LABEL and answer.costs[3].calls == 1


def test_llm_mode_sends_the_embedded_replies_through_the_reader(studio: Studio) -> None:
    forced = Studio(studio.settings.updated(structure_producer="llm"))
    answer = forced.ask("disco_rag", QUESTION)
    _check_answer(answer, 3)
    parse, graph_cost = answer.costs[1], answer.costs[2]
    assert parse.calls == 3 and parse.completion_tokens > 0 and parse.cache_hits == 0
    assert graph_cost.calls >= 1
    for record in answer.structures["rst_trees"]:
        outcome = record["outcome"]
        assert outcome["requested"] == EMBEDDED_LABEL
        assert outcome["status"] in {"parsed", "repaired", "fallback"}
        if outcome["status"] == "fallback":
            assert outcome["fallback_reason"] and record["producer"] == TRAINED_PRODUCER
    graph = answer.structures["rhetorical_graph"]
    assert graph["requested"] == EMBEDDED_LABEL
    assert graph["producer"] == EMBEDDED_LABEL or graph["fallback_reason"]
    again = forced.ask("disco_rag", QUESTION)
    assert again.costs[1].cache_hits == 3 and again.costs[1].calls == 0, "trees come from the cache"


@pytest.mark.parametrize("method", ["retrieve_and_plan", "plan_and_retrieve", "shallow_markers"])
def test_the_baselines_complete_on_the_embedded_model(studio: Studio, method: str) -> None:
    answer = studio.ask(method, QUESTION)
    assert answer.passages and answer.costs[-1].calls == 1
    assert answer.structures, "each baseline records what it built"
