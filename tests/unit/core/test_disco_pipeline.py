"""Disco-RAG, its ablations and the planning/marker baselines over a real index with a scripted LLM.

Retrieval is real (MiniLM, embedded Chroma, the sample documents). The LLM is
`tests/fakes/discourse_llm.DiscourseLLM`: a small class that recognises each stage's prompt and
returns replies written by its own rules (or junk for stages it is told to break). No model runs.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from backend.config import Settings
from backend.discourse.chunk_parse import TRAINED_PRODUCER, TrainedChunkParser
from backend.generation.discourse_prompts import STRUCTURE_RULES, fit_guided_prompt, structure_block
from backend.generation.prompts import ANSWER_SYSTEM, passage_block
from backend.llm import capability
from backend.pipelines import RunContext, get_method
from backend.pipelines.disco_stages import retrieve, structure_sections
from backend.pipelines.discourse_baselines import HEURISTIC_MARKERS, heuristic_markers
from backend.studio import Studio
from tests.conftest import SAMPLES
from tests.fakes.discourse_llm import DiscourseLLM

QUESTION = "How much does an electric bus cost compared with a diesel bus?"


@pytest.fixture(scope="module")
def studio(tmp_path_factory: pytest.TempPathFactory) -> Studio:
    studio = Studio(Settings(data_dir=tmp_path_factory.mktemp("data"), structure_producer="llm", top_k=4))
    for path in sorted(SAMPLES.iterdir()):
        studio.indexer.index_file(path.read_bytes(), path.name)
    return studio


@pytest.fixture(autouse=True)
def fresh_probe_cache() -> Iterator[None]:
    capability._REPORTS.clear()
    yield
    capability._REPORTS.clear()


def run(studio: Studio, method: str, llm: DiscourseLLM, data_dir: Path, **settings: object):
    ctx_settings = studio.settings.updated(data_dir=data_dir, **settings)
    ctx = RunContext(ctx_settings, llm, studio.embedder, studio.store, studio.library)
    return get_method(method).run(QUESTION, ctx)


def test_disco_rag_builds_trees_graph_and_plan_and_cites(studio: Studio, tmp_path: Path) -> None:
    llm = DiscourseLLM()
    answer = run(studio, "disco_rag", llm, tmp_path)
    k = len(answer.passages)
    assert k == 4
    assert [c.stage for c in answer.costs] == ["retrieve", "parse trees", "graph", "plan", "generate"]
    trees, graph, plan = (answer.structures[key] for key in ("rst_trees", "rhetorical_graph", "plan"))
    assert [r["outcome"]["status"] for r in trees] == ["parsed"] * k
    assert all(r["producer"] == llm.label and "as chosen in the settings" in r["choice"] for r in trees)
    assert graph["producer"] == llm.label and graph["not_predicted"] == [] and not graph["fallback_reason"]
    assert plan["text"].startswith("Open with") and plan["producer"] == llm.label
    assert answer.citations and answer.citations[0].source == "model"
    parse = answer.costs[1]
    assert (parse.calls, parse.cache_hits) == (k, 0) and parse.prompt_tokens > 0
    prompt = llm.prompts["answer"][-1]
    assert 'kind="rst_trees"' in prompt and 'kind="rhetorical_graph"' in prompt and 'kind="plan"' in prompt
    assert "ELABORATES" in prompt and "Open with the figure" in prompt


def test_trees_are_cached_per_chunk_and_producer(studio: Studio, tmp_path: Path) -> None:
    llm = DiscourseLLM()
    run(studio, "disco_rag", llm, tmp_path)
    again = run(studio, "disco_rag", llm, tmp_path)
    parse = again.costs[1]
    assert parse.cache_hits == len(again.passages) and parse.calls == 0 and parse.prompt_tokens == 0
    assert llm.calls["tree"] == len(again.passages)
    assert all(r["cache_hit"] for r in again.structures["rst_trees"])


@pytest.mark.parametrize(
    ("method", "absent_stage", "absent_key"),
    [
        ("disco_rag_no_tree", "parse trees", "rst_trees"),
        ("disco_rag_no_graph", "graph", "rhetorical_graph"),
        ("disco_rag_no_plan", "plan", "plan"),
    ],
)
def test_each_ablation_drops_exactly_its_stage(
    studio: Studio, tmp_path: Path, method: str, absent_stage: str, absent_key: str
) -> None:
    llm = DiscourseLLM()
    answer = run(studio, method, llm, tmp_path)
    stages = [c.stage for c in answer.costs]
    assert absent_stage not in stages and stages[0] == "retrieve" and stages[-1] == "generate"
    assert absent_key not in answer.structures
    assert len(answer.structures) == 2
    assert f'kind="{absent_key}"' not in llm.prompts["answer"][-1]


def test_unreadable_trees_fall_back_per_chunk_with_the_reason(studio: Studio, tmp_path: Path) -> None:
    answer = run(studio, "disco_rag", DiscourseLLM(broken=frozenset({"tree"})), tmp_path)
    for record in answer.structures["rst_trees"]:
        assert record["outcome"]["status"] == "fallback"
        assert record["producer"] == TRAINED_PRODUCER
        assert record["outcome"]["fallback_reason"] == "The reply lists no numbered EDUs."
    assert answer.costs[1].calls == len(answer.passages), "the failed calls still count"


def test_an_unreadable_graph_falls_back_to_the_classifier(studio: Studio, tmp_path: Path) -> None:
    answer = run(studio, "disco_rag", DiscourseLLM(broken=frozenset({"graph"})), tmp_path)
    graph = answer.structures["rhetorical_graph"]
    assert (
        graph["producer"] == "relation-classifier:gum-v1"
        and graph["requested"] == "ollama:scripted-discourse"
    )
    assert "no usable" in graph["fallback_reason"]
    assert len(graph["graph"]["edges"]) == len(answer.passages) * (len(answer.passages) - 1)


def test_trained_mode_builds_structure_without_the_llm(studio: Studio, tmp_path: Path) -> None:
    llm = DiscourseLLM()
    answer = run(studio, "disco_rag", llm, tmp_path, structure_producer="trained")
    assert "tree" not in llm.calls and "graph" not in llm.calls
    assert {r["producer"] for r in answer.structures["rst_trees"]} == {TRAINED_PRODUCER}
    assert answer.structures["rhetorical_graph"]["producer"] == "relation-classifier:gum-v1"
    assert answer.structures["plan"]["producer"] == llm.label, "the generator always plans"


def test_auto_mode_uses_the_trained_producers_when_the_probe_fails(studio: Studio, tmp_path: Path) -> None:
    llm = DiscourseLLM()
    answer = run(studio, "disco_rag", llm, tmp_path, structure_producer="auto")
    assert "tree" not in llm.calls
    graph = answer.structures["rhetorical_graph"]
    assert graph["producer"] == "relation-classifier:gum-v1"
    assert "does not follow the structured formats" in graph["choice"]


def test_retrieve_and_plan_splits_plan_and_answer(studio: Studio, tmp_path: Path) -> None:
    answer = run(studio, "retrieve_and_plan", DiscourseLLM(), tmp_path)
    assert answer.structures["plan"]["text"] == "Use [1] first."
    assert answer.text == "An electric bus costs more than a diesel one [1]."
    assert [c.stage for c in answer.costs] == ["retrieve", "plan + generate"]


def test_plan_and_retrieve_plans_first_and_records_its_queries(studio: Studio, tmp_path: Path) -> None:
    llm = DiscourseLLM()
    answer = run(studio, "plan_and_retrieve", llm, tmp_path)
    plan = answer.structures["plan"]
    assert plan["retrieval_queries"] == ["price of an electric bus", "diesel cost"]
    assert [c.stage for c in answer.costs] == ["plan", "retrieve", "generate"]
    assert 'kind="plan"' in llm.prompts["answer"][-1]


def test_plan_and_retrieve_without_queries_says_so(studio: Studio, tmp_path: Path) -> None:
    answer = run(studio, "plan_and_retrieve", DiscourseLLM(broken=frozenset({"plan_first"})), tmp_path)
    assert answer.structures["plan"]["retrieval_queries"] == []
    assert any("only the question" in p for p in answer.structures["plan"]["problems"])
    assert answer.passages


def test_shallow_markers_labels_pairs_and_falls_back_to_the_heuristic(studio: Studio, tmp_path: Path) -> None:
    llm = DiscourseLLM()
    answer = run(studio, "shallow_markers", llm, tmp_path)
    record = answer.structures["discourse_markers"]
    k = len(answer.passages)
    assert record["producer"] == llm.label and len(record["pairs"]) == k * (k - 1)
    assert {m for _, _, m in record["pairs"]} == {"moreover", "NONE"}
    assert 'kind="discourse_markers"' in llm.prompts["answer"][-1]
    broken = run(studio, "shallow_markers", DiscourseLLM(broken=frozenset({"markers"})), tmp_path)
    assert broken.structures["discourse_markers"]["producer"] == HEURISTIC_MARKERS
    assert "no usable" in broken.structures["discourse_markers"]["fallback_reason"]


def test_heuristic_markers_take_the_targets_opening_connective() -> None:
    markers = heuristic_markers(["Buses are new.", "However, they cost more.", "For example, in Oslo."])
    assert markers[(0, 1)] == markers[(2, 1)] == "however"
    assert markers[(0, 2)] == "for example" and markers[(1, 0)] == "NONE"


def test_an_empty_selection_answers_with_a_warning(studio: Studio, tmp_path: Path) -> None:
    llm = DiscourseLLM()
    ctx = RunContext(
        studio.settings.updated(data_dir=tmp_path), llm, studio.embedder, studio.store, studio.library, []
    )
    answer = get_method("disco_rag").run(QUESTION, ctx)
    assert answer.text == "" and "No passages" in answer.warnings[0] and llm.calls == {}


def test_structure_is_shortened_then_dropped_to_fit_the_context(studio: Studio) -> None:
    passages = retrieve(
        QUESTION, RunContext(studio.settings, DiscourseLLM(), studio.embedder, studio.store, studio.library)
    )[0]
    trees = [TrainedChunkParser().parse(p.text).tree for p in passages]

    def render(n: int, words: int | None) -> list:
        return structure_sections(n, words, trees, None, "Plan text.")

    def fit(context: int) -> tuple[int, list, list[str]]:
        kept, sections, warnings = fit_guided_prompt(
            DiscourseLLM(context_window=context), QUESTION, passages, render, 50
        )
        return len(kept), [kind for kind, _ in sections], warnings

    assert fit(8192) == (4, ["rst_trees", "plan"], [])
    words_of = DiscourseLLM().count_tokens
    overhead = (
        words_of(ANSWER_SYSTEM + STRUCTURE_RULES)
        + words_of(QUESTION)
        + 60
        + 50
        + words_of(passage_block(passages))
    )

    def needed(words: int | None) -> int:
        return overhead + words_of(structure_block(render(4, words)))

    n, kinds, warnings = fit(needed(0))
    assert (n, kinds) == (4, ["rst_trees", "plan"]) and "shortened to EDU ids" in warnings[0]
    n, kinds, warnings = fit(needed(None))
    assert (n, kinds) == (4, ["plan"]) and "left out" in warnings[0]
    n, _, warnings = fit(needed(None) - 100)
    assert 1 <= n < 4 and f"Only {n} of 4 passages" in warnings[0]
