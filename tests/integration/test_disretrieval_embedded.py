"""DISRetrieval and its baselines end to end: real MiniLM, real Chroma, real parser, real embedded Gemma.

"auto" mode: the base model fails the capability check, so trees are merge-only and the record
says why. "llm" mode: the base model writes node summaries anyway; its replies are poor, so the
test asserts that every internal node records who wrote its text (a summary, or a merge with the
reason the reply was rejected), that summaries are cached, and that the answer is well formed.
"""

from __future__ import annotations

import json

import pytest

from backend.config import Settings
from backend.retrieval.node_store import NodeStore
from backend.retrieval.selection_record import SelectionRecord
from backend.retrieval.tree_files import TreeFiles
from backend.retrieval.tree_index import shared_parser
from backend.studio import Studio
from tests.conftest import SAMPLES

pytestmark = pytest.mark.integration

QUESTION = "How much does an electric bus cost compared with a diesel bus?"
BUDGET = 120


@pytest.fixture(scope="module")
def studio(tmp_path_factory: pytest.TempPathFactory) -> Studio:
    settings = Settings(data_dir=tmp_path_factory.mktemp("disr"), llm_max_tokens=40, disr_word_budget=BUDGET)
    studio = Studio(settings)
    sample = SAMPLES / "electric-buses-report.md"
    studio.indexer.index_file(sample.read_bytes(), sample.name)
    return studio


def check_answer(answer, method: str) -> SelectionRecord:
    assert answer.method == method and answer.producer.startswith("embedded:")
    assert [c.stage for c in answer.costs] == ["build trees", "retrieve", "generate"]
    assert answer.costs[-1].calls == 1
    assert answer.passages, "evidence was selected"
    starts = [p.start for p in answer.passages]
    assert starts == sorted(starts), "evidence comes in document order"
    assert sum(len(p.text.split()) for p in answer.passages) <= BUDGET
    for citation in answer.citations:
        assert citation.passage is answer.passages[citation.number - 1]
    record = SelectionRecord.from_dict(json.loads(json.dumps(answer.structures["discourse_selection"])))
    assert record.method == method and record.words == BUDGET
    assert record.visits and record.selected
    return record


def test_disretrieval_builds_a_merge_only_discourse_tree_and_answers(studio: Studio) -> None:
    answer = studio.ask("disretrieval", QUESTION)
    record = check_answer(answer, "disretrieval")
    tree = record.trees[0]
    assert tree.structure_producer == shared_parser().producer
    assert set(tree.text_producers) == {"merge"}
    assert "Merge-only" in record.structure_reason and "Trained producers" in record.structure_reason
    assert record.subtree_k == studio.settings.disr_subtree_k
    assert any("560,000" in p.text for p in answer.passages), "the cost sentence is found"
    again = studio.ask("disretrieval", QUESTION)
    assert (
        again.costs[0].cache_hits == 1
        and not SelectionRecord.from_dict(again.structures["discourse_selection"]).trees[0].built_now
    )


@pytest.mark.parametrize("method", ["bisection", "raptor", "flatten_chunk", "flatten_sentence"])
def test_baselines_answer_from_their_own_trees(studio: Studio, method: str) -> None:
    record = check_answer(studio.ask(method, QUESTION), method)
    assert record.trees[0].method == method
    assert (record.subtree_k is not None) == (method == "bisection")


def test_deleting_a_document_deletes_its_tree_nodes_and_files(tmp_path) -> None:
    studio = Studio(Settings(data_dir=tmp_path / "data", llm_max_tokens=20))
    sample = SAMPLES / "electric-buses-report.md"
    doc = studio.indexer.index_file(sample.read_bytes(), sample.name).document
    studio.ask("disretrieval", QUESTION)
    studio.ask("raptor", QUESTION)
    nodes = NodeStore(studio.store)
    files = TreeFiles(studio.settings.data_dir)
    assert nodes.count(doc.id) > 0 and len(files.tree_ids(doc.id)) == 2
    studio.indexer.delete(doc.id)
    assert nodes.count(doc.id) == 0 and files.tree_ids(doc.id) == []


def test_the_embedded_model_writes_node_summaries_when_asked_and_they_are_cached(tmp_path) -> None:
    settings = Settings(
        data_dir=tmp_path / "data", llm_max_tokens=30, structure_producer="llm", disr_tau_words=0
    )
    studio = Studio(settings)
    text = (
        "# Night trains\n\nNight trains returned to Europe in 2021. Four new routes opened that year.\n\n"
        "Tickets sold out quickly. Operators plan to buy more sleeping cars.\n"
    )
    doc = studio.indexer.index_file(text.encode(), "trains.md").document
    answer = studio.ask("disretrieval", "When did night trains return?")
    assert answer.passages and answer.costs[-1].calls == 1
    record = SelectionRecord.from_dict(answer.structures["discourse_selection"])
    assert record.structure_reason.startswith("Node summaries by embedded:")
    producers = record.trees[0].text_producers
    label = studio.llm.label
    internal = len(doc.sentences) - 1
    assert sum(producers.values()) == internal
    assert all(p == f"summary:{label}" or p.startswith(f"merge (summary by {label} ") for p in producers)
    assert answer.costs[0].calls == internal, "one model call per internal node at tau=0"
    TreeFiles(settings.data_dir).remove_document(doc.id)  # forces a rebuild of the tree
    again = studio.ask("disretrieval", "When did night trains return?")
    assert again.costs[0].calls == 0 and again.costs[0].cache_hits == internal, (
        "summaries came from the cache"
    )
