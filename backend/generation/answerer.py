"""Turns a question and passages into a cited answer with one model call, within its context."""

from __future__ import annotations

from collections.abc import Sequence

from backend.generation.answer import Citation
from backend.generation.attribution import MIN_SIMILARITY, attribute_sentences
from backend.generation.citations import resolve_citations
from backend.generation.prompts import (
    COMPLETION_STOPS,
    answer_completion_prompt,
    answer_messages,
    passage_block,
)
from backend.llm.base import Completion, LLMClient
from backend.retrieval.embedder import Embedder
from backend.retrieval.search import Passage

_PROMPT_OVERHEAD_TOKENS = 200


def is_base_model(llm: LLMClient) -> bool:
    """The embedded Gemma 270M is a base model: it gets continuation prompts, not instructions."""
    return llm.label.startswith("embedded:")


def fit_passages(
    question: str, passages: Sequence[Passage], llm: LLMClient, reply_tokens: int
) -> tuple[list[Passage], list[str]]:
    """Keep passages in order while the prompt still leaves room for the reply."""
    budget = llm.context_window - reply_tokens - _PROMPT_OVERHEAD_TOKENS - llm.count_tokens(question)
    kept: list[Passage] = []
    used = 0
    for passage in passages:
        cost = llm.count_tokens(passage_block([passage]))
        if used + cost > budget:
            break
        kept.append(passage)
        used += cost
    warnings = []
    if len(kept) < len(passages):
        warnings.append(
            f"Only {len(kept)} of {len(passages)} passages fit the model's context of "
            f"{llm.context_window} tokens; the rest were left out."
        )
    return kept, warnings


def generate_cited_answer(
    question: str, passages: Sequence[Passage], llm: LLMClient, embedder: Embedder, max_tokens: int
) -> tuple[str, list[Citation], Completion, list[str]]:
    """Answer text, citations (the model's, else attributed), the completion (for costs) and warnings."""
    if is_base_model(llm):
        completion = llm.complete(
            answer_completion_prompt(question, passages), max_tokens=max_tokens, stop=list(COMPLETION_STOPS)
        )
    else:
        completion = llm.chat(answer_messages(question, passages), max_tokens=max_tokens)
    text, citations, warnings = cite_reply(completion.text, passages, embedder)
    return text, citations, completion, warnings


def cite_reply(
    text: str, passages: Sequence[Passage], embedder: Embedder
) -> tuple[str, list[Citation], list[str]]:
    """The answer text with its citations: the model's valid markers, else attributed by similarity."""
    text = text.strip()
    citations, warnings = resolve_citations(text, passages)
    if citations:
        return text, citations, warnings
    text, citations = attribute_sentences(text, passages, embedder)
    if citations:
        warnings.append(
            "The model cited no passage. The markers shown were added by the studio: each answer "
            f"sentence points to its most similar passage (cosine >= {MIN_SIMILARITY})."
        )
    else:
        warnings.append(
            "The model cited no passage and no answer sentence resembles one: "
            "the answer may not come from the documents."
        )
    return text, citations, warnings
