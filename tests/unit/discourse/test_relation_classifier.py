"""Inter-chunk relation classifier: graph validation, GUM pair extraction, committed weights."""

from __future__ import annotations

import random
import time
from pathlib import Path

import pytest

from backend.discourse.relation_classifier import PRODUCER, RelationClassifier, side_cues
from backend.discourse.rhetorical_graph import INTER_CHUNK, Edge, RhetoricalGraph
from backend.discourse.span_pairs import GUM_TO_INTER_CHUNK, sample_negatives, sibling_pairs
from backend.errors import MalformedOutputError
from tests.unit.discourse.conftest import fake_embed


@pytest.fixture(scope="module")
def classifier() -> RelationClassifier:
    return RelationClassifier.load_default(embed=fake_embed)


def test_graph_round_trips_through_json() -> None:
    graph = RhetoricalGraph(3, [Edge(0, 1, "SUPPORTS", 0.9), Edge(2, 0, "UNRELATED")], "test")
    again = RhetoricalGraph.from_dict(graph.to_dict())
    assert again == graph
    assert again.label(0, 1) == "SUPPORTS" and again.label(1, 0) == "UNRELATED"


@pytest.mark.parametrize(
    ("edges", "message"),
    [
        ([Edge(0, 3, "SUPPORTS")], "outside"),
        ([Edge(-1, 0, "SUPPORTS")], "outside"),
        ([Edge(1, 1, "SUPPORTS")], "self loop"),
        ([Edge(0, 1, "ELABORATION")], "not an inter-chunk"),
        ([Edge(0, 1, "SUPPORTS"), Edge(0, 1, "CAUSES")], "more than one"),
    ],
)
def test_invalid_graphs_are_rejected(edges: list[Edge], message: str) -> None:
    with pytest.raises(MalformedOutputError, match=message):
        RhetoricalGraph(3, edges, "test")


def test_wrong_schema_version_is_rejected() -> None:
    data = RhetoricalGraph(2, [Edge(0, 1, "CAUSES")], "test").to_dict()
    with pytest.raises(MalformedOutputError, match="schema version"):
        RhetoricalGraph.from_dict({**data, "schema_version": 99})
    with pytest.raises(MalformedOutputError, match="incomplete"):
        RhetoricalGraph.from_dict({"schema_version": 1, "edges": []})


def test_mapping_targets_are_inter_chunk_labels() -> None:
    for forward, converse in GUM_TO_INTER_CHUNK.values():
        assert forward in INTER_CHUNK and (converse is None or converse in INTER_CHUNK)


def test_cue_features_read_the_leading_phrase() -> None:
    assert side_cues("However, costs rose.").sum() == 1
    assert side_cues("Costs rose.").sum() == 0


def test_sibling_pairs_on_a_real_gum_file(gum_dir: Path) -> None:
    dis = gum_dir / "dev" / "rst" / "GUM_academic_exposure.dis"
    doc = sibling_pairs(
        dis.stem, dis.read_text(encoding="utf-8"), gum_dir / "dev" / "conllu" / f"{dis.stem}.conllu"
    )
    assert len(doc.pairs) > 20
    n = len(doc.sentences)
    for pair in doc.pairs:
        assert 0 <= pair.source[0] <= pair.source[1] < n and 0 <= pair.target[0] <= pair.target[1] < n
        assert pair.source[1] < pair.target[0] or pair.target[1] < pair.source[0]  # disjoint spans
        assert pair.label == GUM_TO_INTER_CHUNK[pair.gum_relation][0] or pair.label in INTER_CHUNK
    # the heading "Introduction" opens the document: a satellite of what follows it
    first = next(p for p in doc.pairs if p.source == (0, 0))
    assert first.gum_relation == "organization-heading" and first.label == "GENERALIZES"
    negatives = sample_negatives([doc], random.Random(0))
    assert negatives and all(p.label == "UNRELATED" for p in negatives)
    assert all(abs(p.source[0] - p.target[0]) > 10 for p in negatives)


def test_predict_returns_a_label_from_the_set(classifier: RelationClassifier) -> None:
    label, confidence = classifier.predict("Costs fell sharply.", "However, quality dropped.")
    assert label in INTER_CHUNK and 0.0 < confidence <= 1.0


def test_graph_labels_every_ordered_pair(classifier: RelationClassifier) -> None:
    texts = [f"Chunk {i} says something about buses. It has a second sentence number {i}." for i in range(10)]
    began = time.perf_counter()
    graph = classifier.graph(texts)
    print(f"k=10 graph with a stand-in embedder: {1000 * (time.perf_counter() - began):.1f} ms")
    assert graph.producer == PRODUCER and graph.n_nodes == 10
    assert {(e.source, e.target) for e in graph.edges} == {
        (i, j) for i in range(10) for j in range(10) if i != j
    }
    assert RhetoricalGraph.from_dict(graph.to_dict()) == graph
    assert classifier.graph(["only one"]).edges == []
