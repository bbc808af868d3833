"""The HTML report draws each structure (trees, graph, plan, trajectory) without scripts.

The Disco-RAG answer comes from the real pipeline over the sample documents (MiniLM, embedded
Chroma) with the rule-following fake LLM of tests/fakes/discourse_llm.py; the trajectory from a
real route with hand-written router replies (tests/unit/components/test_trajectory_view.py).
"""

from __future__ import annotations

import re

import pytest

from backend.config import Settings
from backend.discourse.rhetorical_graph import RhetoricalGraph
from backend.generation.answer import Answer
from backend.llm import capability
from backend.pipelines import RunContext, get_method
from backend.reports.answer_export import answer_to_html
from backend.routing.trajectory import RoutingRecord
from backend.studio import Studio
from components.report_drawings import REPORT_DRAWINGS, graph_svg
from tests.conftest import SAMPLES
from tests.fakes.discourse_llm import DiscourseLLM
from tests.unit.components.test_trajectory_view import routed


@pytest.fixture(scope="module")
def disco_answer(tmp_path_factory: pytest.TempPathFactory) -> Answer:
    capability._REPORTS.clear()
    data_dir = tmp_path_factory.mktemp("data")
    studio = Studio(Settings(data_dir=data_dir, structure_producer="llm", top_k=4))
    for path in sorted(SAMPLES.iterdir()):
        studio.indexer.index_file(path.read_bytes(), path.name)
    ctx = RunContext(studio.settings, DiscourseLLM(), studio.embedder, studio.store, studio.library)
    answer = get_method("disco_rag").run(
        "How much does an electric bus cost compared with a diesel bus?", ctx
    )
    capability._REPORTS.clear()
    return answer


def test_disco_report_draws_trees_graph_and_plan_and_keeps_the_json(disco_answer: Answer) -> None:
    page = answer_to_html(disco_answer, REPORT_DRAWINGS)
    assert "<script" not in page.lower() and "http://" not in page and "https://" not in page
    trees = disco_answer.structures["rst_trees"]
    assert page.count('class="rst-outline"') == len(trees) == 4
    graph = RhetoricalGraph.from_dict(disco_answer.structures["rhetorical_graph"]["graph"])
    related = [e for e in graph.edges if e.label != "UNRELATED"]
    assert related, "the fake LLM labels some pairs"
    svg = re.search(r"<svg.*?</svg>", page, re.DOTALL).group(0)
    assert svg.count("<line") == len(related) and svg.count("<circle") == graph.n_nodes
    assert "Written by <code>" in page
    assert page.count("<summary>JSON</summary>") == len(disco_answer.structures)


def test_conflicting_edges_are_thick_and_red() -> None:
    from backend.discourse.rhetorical_graph import Edge

    graph = RhetoricalGraph(
        3, [Edge(0, 1, "SUPPORTS"), Edge(1, 2, "CONTRADICTS"), Edge(2, 0, "UNRELATED")], "m"
    )
    lines = re.findall(r"<line[^>]*>", graph_svg(graph))
    assert len(lines) == 2
    assert 'stroke="#c62828" stroke-width="3.5"' in lines[1] and 'stroke-width="1.5"' in lines[0]


def test_trajectory_report_shows_every_step_escaped() -> None:
    record = RoutingRecord(
        "llm router (ollama:scripted)", "chosen in a test.", 3, True, True, True, [routed()]
    )
    answer = Answer("rdr2", "q", "a", [], [], "test", structures={"trajectory": record.to_dict()})
    page = answer_to_html(answer, REPORT_DRAWINGS)
    assert "Step 1 · usable reply" in page and "Step 2 · usable reply" in page
    assert "⤵ EXPAND" in page and "✔ ANSWERED" in page
    assert "<script>alert" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "[EXPAND] 3" in page, "the raw reply is shown literally"


def test_a_drawing_that_fails_leaves_the_json_with_a_note() -> None:
    answer = Answer("disco_rag", "q", "a", [], [], "test", structures={"plan": {"unexpected": 1}})
    page = answer_to_html(answer, {"plan": lambda value: value["text"]})
    assert "could not be drawn" in page and "&quot;unexpected&quot;: 1" in page
