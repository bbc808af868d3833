import pytest

from backend.discourse.labels import DISCO_RAG_INTRA, GUM_COARSE, coarse_relation, to_disco_rag


def test_coarse_classes() -> None:
    assert coarse_relation("elaboration-additional") == "elaboration"
    assert coarse_relation("same-unit") == "same-unit"
    with pytest.raises(KeyError):
        coarse_relation("made-up")


@pytest.mark.parametrize("label", [*GUM_COARSE, "adversative-concession", "joint-list", "causal-result"])
def test_every_label_maps_into_the_disco_rag_set(label: str) -> None:
    assert to_disco_rag(label) in DISCO_RAG_INTRA


def test_fine_labels_map_closer() -> None:
    assert to_disco_rag("adversative") == "CONTRAST"
    assert to_disco_rag("adversative-concession") == "CONCESSION"
    assert to_disco_rag("explanation-evidence") == "EVIDENCE"
