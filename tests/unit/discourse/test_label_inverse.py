"""Disco-RAG intra-chunk labels map back to GUM coarse classes, so LLM trees can be scored on GUM."""

from __future__ import annotations

import pytest

from backend.discourse.labels import DISCO_RAG_INTRA, GUM_COARSE, from_disco_rag, to_disco_rag


@pytest.mark.parametrize("label", DISCO_RAG_INTRA)
def test_every_disco_rag_label_maps_to_a_gum_coarse_class(label: str) -> None:
    assert from_disco_rag(label) in GUM_COARSE


@pytest.mark.parametrize("coarse", sorted(set(GUM_COARSE) - {"mode", "organization", "same-unit", "topic"}))
def test_a_class_with_its_own_disco_rag_label_comes_back(coarse: str) -> None:
    assert from_disco_rag(to_disco_rag(coarse)) == coarse


def test_unknown_labels_are_refused() -> None:
    with pytest.raises(KeyError, match="known labels"):
        from_disco_rag("elaboration")
