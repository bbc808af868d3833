"""A cited answer from a prompt that carries discourse structure, with the studio's citation rules.

Same contract as `answerer.generate_cited_answer` (its `cite_reply` does the citing), for prompts
built elsewhere: the Disco-RAG answer with trees, graph and plan, and the planning and marker
baselines.
"""

from __future__ import annotations

from collections.abc import Sequence

from backend.generation.answer import Citation
from backend.generation.answerer import cite_reply, is_base_model
from backend.generation.discourse_prompts import Section, guided_answer_messages, guided_completion_prompt
from backend.generation.prompts import COMPLETION_STOPS
from backend.llm.base import Completion, LLMClient
from backend.retrieval.embedder import Embedder
from backend.retrieval.search import Passage


def generate_guided_answer(
    question: str,
    passages: Sequence[Passage],
    sections: Sequence[Section],
    llm: LLMClient,
    embedder: Embedder,
    max_tokens: int,
) -> tuple[str, list[Citation], Completion, list[str]]:
    """Answer text, citations, the completion (for costs) and warnings."""
    if is_base_model(llm):
        completion = llm.complete(
            guided_completion_prompt(question, passages, sections),
            max_tokens=max_tokens,
            stop=list(COMPLETION_STOPS),
        )
    else:
        completion = llm.chat(guided_answer_messages(question, passages, sections), max_tokens=max_tokens)
    text, citations, warnings = cite_reply(completion.text, passages, embedder)
    return text, citations, completion, warnings
