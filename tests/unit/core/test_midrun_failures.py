"""A model server that fails mid-run: Disco-RAG, DISRetrieval and RDR2 keep what they built.

Retrieval is real (MiniLM, embedded Chroma, the sample documents). The LLM is
`tests/fakes/stage_llm.FailingStageLLM`: replies written by its rules until a chosen stage stops
answering, then the studio's own error types (or empty replies). Each test checks the Answer
(a warning naming the stage, the structures built before the failure) and the caches: a later
run against a healthy server must not read anything the failure left behind.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from backend.config import Settings
from backend.discourse.chunk_parse import TRAINED_PRODUCER
from backend.discourse.tree_cache import TreeCache
from backend.errors import LLMRequestError, ModelNotFoundError
from backend.generation.answer import Answer
from backend.pipelines import RunContext, get_method
from backend.retrieval.tree_files import TreeFiles
from backend.studio import Studio
from tests.conftest import SAMPLES
from tests.fakes.stage_llm import FailingStageLLM, StageLLM

QUESTION = "How much does an electric bus cost compared with a diesel bus?"
LABEL = "ollama:scripted-stages"


@pytest.fixture(scope="module")
def studio(tmp_path_factory: pytest.TempPathFactory) -> Studio:
    studio = Studio(Settings(data_dir=tmp_path_factory.mktemp("data"), structure_producer="llm", top_k=4))
    for path in sorted(SAMPLES.iterdir()):
        studio.indexer.index_file(path.read_bytes(), path.name)
    return studio


def run(
    studio: Studio, method: str, llm: StageLLM, data_dir: Path, doc_ids: list[str] | None = None
) -> Answer:
    ctx = RunContext(
        studio.settings.updated(data_dir=data_dir),
        llm,
        studio.embedder,
        studio.store,
        studio.library,
        doc_ids,
    )
    return get_method(method).run(QUESTION, ctx)


def warning_with(answer: Answer, text: str) -> str:
    found = [w for w in answer.warnings if text in w]
    assert found, f"no warning contains {text!r}: {answer.warnings}"
    return found[0]


def cached_trees(data_dir: Path) -> int:
    return len(list((data_dir / "rst_trees").rglob("*.json")))


def test_disco_rag_keeps_every_structure_when_the_server_dies_after_two_trees(
    studio: Studio, tmp_path: Path
) -> None:
    answer = run(studio, "disco_rag", FailingStageLLM(ok_calls=2), tmp_path)
    assert answer.failed_stage == "generate" and answer.text == "" and answer.citations == []
    assert len(answer.passages) == 4, "the passages read are still shown"
    assert [c.stage for c in answer.costs] == ["retrieve", "parse trees", "graph", "plan"]
    trees = answer.structures["rst_trees"]
    assert [r["outcome"]["status"] for r in trees] == ["parsed", "parsed", "fallback", "fallback"]
    assert [r["outcome"]["call_failed"] for r in trees] == [False, False, True, True]
    assert all(r["producer"] == TRAINED_PRODUCER for r in trees[2:])
    graph = answer.structures["rhetorical_graph"]
    assert graph["producer"] == "relation-classifier:gum-v1" and "[E200]" in graph["fallback_reason"]
    assert "[E200]" in answer.structures["plan"]["problems"][0]
    warning_with(
        answer, "Parse trees stage: 2 of 4 chunks got no tree from the model (the model call failed: [E200]"
    )
    warning_with(answer, "Graph stage: no usable graph from ollama:scripted-stages (the call over chunks")
    warning_with(answer, "The plan stage failed: [E200]")
    warning_with(answer, "The generate stage failed: [E200]")
    assert cached_trees(tmp_path) == 2, "the two fallbacks forced by the failure are not cached"

    healthy = StageLLM(label=LABEL)
    again = run(studio, "disco_rag", healthy, tmp_path)
    assert again.failed_stage == "" and again.text and again.citations
    assert [r["cache_hit"] for r in again.structures["rst_trees"]] == [True, True, False, False]
    assert {r["outcome"]["status"] for r in again.structures["rst_trees"]} == {"parsed"}
    assert healthy.calls["tree"] == 2 and cached_trees(tmp_path) == 4
    assert not [w for w in again.warnings if "stage" in w]


def test_a_failed_answer_call_returns_the_trees_graph_and_plan(studio: Studio, tmp_path: Path) -> None:
    llm = FailingStageLLM(fail_stages=frozenset({"answer"}), error=LLMRequestError("Bad request.", "Retry."))
    answer = run(studio, "disco_rag", llm, tmp_path)
    assert answer.failed_stage == "generate" and answer.text == ""
    assert set(answer.structures) == {"rst_trees", "rhetorical_graph", "plan"}
    assert answer.structures["rhetorical_graph"]["producer"] == LABEL
    assert answer.structures["plan"]["text"].startswith("Open with")
    assert answer.warnings == [
        "The generate stage failed: [E202] Bad request. Retry. No answer was written; the passages and "
        "structures built before it are kept."
    ]


def test_a_failed_plan_call_leaves_the_answer_unplanned(studio: Studio, tmp_path: Path) -> None:
    llm = FailingStageLLM(fail_stages=frozenset({"plan"}))
    answer = run(studio, "disco_rag", llm, tmp_path)
    assert answer.failed_stage == "" and answer.text and answer.citations
    plan = answer.structures["plan"]
    assert plan["text"] == "" and "The plan stage failed: [E200]" in plan["problems"][0]
    warning_with(answer, "The answer is written without a plan.")
    assert 'kind="plan"' not in llm.prompts["answer"][-1]


def test_a_missing_graph_model_falls_back_to_the_classifier_and_says_so(
    studio: Studio, tmp_path: Path
) -> None:
    error = ModelNotFoundError("The server does not serve 'parser-model'.", "Choose a served model.")
    answer = run(
        studio, "disco_rag", FailingStageLLM(fail_stages=frozenset({"graph"}), error=error), tmp_path
    )
    graph = answer.structures["rhetorical_graph"]
    assert graph["producer"] == "relation-classifier:gum-v1" and graph["requested"] == LABEL
    assert "[E201]" in graph["fallback_reason"] and len(graph["graph"]["edges"]) == 12
    assert "[E201]" in warning_with(answer, "Graph stage:")
    assert answer.text and answer.failed_stage == ""


def test_empty_tree_replies_are_failed_calls_and_are_not_cached(studio: Studio, tmp_path: Path) -> None:
    llm = FailingStageLLM(fail_stages=frozenset({"tree"}), error=None, reply="")
    answer = run(studio, "disco_rag", llm, tmp_path)
    outcomes = [r["outcome"] for r in answer.structures["rst_trees"]]
    assert all(
        o["call_failed"] and o["fallback_reason"] == "the model returned an empty reply" for o in outcomes
    )
    assert cached_trees(tmp_path) == 0
    cache = TreeCache(tmp_path)
    assert all(cache.get(p.text, f"llm:{LABEL}") is None for p in answer.passages)


def summary_lines(data_dir: Path) -> list[dict]:
    files = list((data_dir / "disretrieval" / "summaries").glob("*.jsonl"))
    return [json.loads(line) for f in files for line in f.read_text().splitlines()]


def test_disretrieval_merges_failed_summaries_and_saves_no_tree_until_they_succeed(
    studio: Studio, tmp_path: Path
) -> None:
    doc = next(s for s in studio.library.summaries() if s.name.endswith(".md"))
    llm = FailingStageLLM(fail_stages=frozenset({"summary"}), ok_calls=3)
    answer = run(studio, "disretrieval", llm, tmp_path, [doc.id])
    assert answer.failed_stage == "" and answer.text, "the answer stage still ran"
    [tree] = answer.structures["discourse_selection"]["trees"]
    producers = tree["text_producers"]
    assert producers[f"summary:{LABEL}"] == 3
    failed = [p for p in producers if p.startswith(f"merge (summary by {LABEL} failed")]
    assert failed and "did not answer" in failed[0]
    warning_with(answer, f"Build trees stage: {llm.failed} node summaries by {LABEL} failed")
    assert tree["tree_id"] not in TreeFiles(tmp_path).tree_ids(doc.id), (
        "a tree with failed summaries is not saved"
    )
    assert len(summary_lines(tmp_path)) == 3 and all(row["text"] for row in summary_lines(tmp_path))

    healthy = StageLLM(label=LABEL)
    again = run(studio, "disretrieval", healthy, tmp_path, [doc.id])
    [tree] = again.structures["discourse_selection"]["trees"]
    assert not any("failed" in p for p in tree["text_producers"]) and tree["built_now"]
    assert again.costs[0].cache_hits >= 3 and healthy.calls["summary"] > 0
    assert tree["tree_id"] in TreeFiles(tmp_path).tree_ids(doc.id)
    assert not [w for w in again.warnings if "Build trees stage" in w]


def test_disretrieval_with_the_server_down_returns_its_selection_without_text(
    studio: Studio, tmp_path: Path
) -> None:
    answer = run(studio, "disretrieval", FailingStageLLM(), tmp_path)
    assert answer.failed_stage == "generate" and answer.text == "" and answer.passages
    assert answer.structures["discourse_selection"]["selected"]
    warning_with(answer, "failed 3 times in a row")
    warning_with(answer, "The generate stage failed: [E200]")


def test_rdr2_reads_the_retrieved_passages_when_the_router_call_fails(studio: Studio, tmp_path: Path) -> None:
    answer = run(studio, "rdr2", FailingStageLLM(fail_stages=frozenset({"router"})), tmp_path)
    assert answer.failed_stage == "" and answer.text
    record = answer.structures["trajectory"]
    first, *rest = record["routes"]
    assert first["stop_reason"] == "call failed" and len(first["steps"]) == 1
    step = first["steps"][0]
    assert step["error"].startswith("[E200]") and step["raw_reply"] == "" and not step["behaviours"]
    assert all(r["stop_reason"] == "call failed" and r["steps"] == [] for r in rest), "not asked again"
    assert all(":c" in p.chunk_id for p in answer.passages), "the retrieved chunks are read"
    warning_with(answer, "The route stage failed: [E200]")
    assert not [w for w in answer.warnings if "unusable" in w], "a failed call is not an unusable reply"


def test_rdr2_keeps_its_trajectory_when_the_answer_call_fails(studio: Studio, tmp_path: Path) -> None:
    answer = run(studio, "rdr2", FailingStageLLM(fail_stages=frozenset({"answer"})), tmp_path)
    assert answer.failed_stage == "generate" and answer.text == "" and answer.passages
    steps = [s for r in answer.structures["trajectory"]["routes"] for s in r["steps"]]
    assert steps and all(not s["error"] for s in steps)
    assert [c.stage for c in answer.costs] == ["retrieve", "route"]
    warning_with(answer, "The generate stage failed: [E200]")
