"""Answer generation with hand-written model replies (a scripted client, not a real model)."""

from __future__ import annotations

import pytest

from backend.generation.answerer import fit_passages, generate_cited_answer
from backend.retrieval.embedder import get_embedder
from backend.retrieval.search import Passage
from tests.fakes.scripted_llm import ScriptedLLM

PASSAGES = [
    Passage("c1", "d", "buses.md", "An electric bus costs about 560,000 euros.", 0, 40, (1,)),
    Passage("c2", "d", "buses.md", "Batteries lose a third of their range in January.", 40, 90, (2,)),
]


@pytest.fixture(scope="module")
def embedder():
    return get_embedder()


def test_model_citations_are_kept_and_marked_as_the_models(embedder) -> None:
    llm = ScriptedLLM("It costs about 560,000 euros [1].")
    text, citations, completion, warnings = generate_cited_answer("Price?", PASSAGES, llm, embedder, 50)
    assert text == "It costs about 560,000 euros [1]."
    assert [(c.number, c.source) for c in citations] == [(1, "model")]
    assert warnings == [] and completion.prompt_tokens > 0
    assert "<passage" in llm.prompts[0], "instruction models get the delimited chat prompt"


def test_uncited_answer_is_attributed_and_says_so(embedder) -> None:
    llm = ScriptedLLM("In winter the batteries lose range.")
    text, citations, _, warnings = generate_cited_answer("Winter?", PASSAGES, llm, embedder, 50)
    assert text.endswith("[2]")
    assert citations[0].number == 2 and citations[0].source == "attributed"
    assert citations[0].similarity >= 0.35
    assert any("added by the studio" in w for w in warnings)


def test_unrelated_uncited_answer_gets_no_citation(embedder) -> None:
    llm = ScriptedLLM("Penguins enjoy sliding on ice.")
    text, citations, _, warnings = generate_cited_answer("Winter?", PASSAGES, llm, embedder, 50)
    assert citations == [] and "[" not in text
    assert any("may not come from the documents" in w for w in warnings)


def test_base_model_gets_a_continuation_prompt(embedder) -> None:
    llm = ScriptedLLM("560,000 euros", label="embedded:gemma-3-270m (base)")
    generate_cited_answer("Price?", PASSAGES, llm, embedder, 50)
    assert llm.prompts[0].endswith("Question: Price?\nAnswer:")


def test_passages_that_do_not_fit_are_dropped_with_a_warning() -> None:
    llm = ScriptedLLM("", context_window=250)
    kept, warnings = fit_passages("q", PASSAGES * 3, llm, reply_tokens=0)
    assert 0 < len(kept) < 6 and kept == (PASSAGES * 3)[: len(kept)]
    assert "fit the model's context" in warnings[0]
