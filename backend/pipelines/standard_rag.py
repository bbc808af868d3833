"""Standard RAG: the top-k chunks by cosine similarity, then one cited answer."""

from __future__ import annotations

import time

from backend.generation.answer import Answer, StageCost
from backend.generation.answerer import fit_passages, generate_cited_answer
from backend.pipelines.registry import RunContext, register
from backend.retrieval.search import retrieve_chunks


@register
class StandardRAG:
    name = "standard_rag"
    title = "Standard RAG"
    description = "Retrieve the top-k chunks by embedding similarity and answer from them with citations."

    def run(self, question: str, ctx: RunContext) -> Answer:
        started = time.perf_counter()
        passages = retrieve_chunks(
            question,
            embedder=ctx.embedder,
            store=ctx.store,
            library=ctx.library,
            k=ctx.settings.top_k,
            doc_ids=ctx.doc_ids,
        )
        retrieval = StageCost("retrieve", latency_s=time.perf_counter() - started)
        if not passages:
            return Answer(
                self.name,
                question,
                "",
                [],
                [],
                ctx.llm.label,
                [retrieval],
                ["No passages were found: the selected documents are empty or not indexed."],
            )
        passages, warnings = fit_passages(question, passages, ctx.llm, ctx.settings.llm_max_tokens)
        text, citations, completion, answer_warnings = generate_cited_answer(
            question, passages, ctx.llm, ctx.embedder, ctx.settings.llm_max_tokens
        )
        generation = StageCost("generate")
        generation.add(completion)
        return Answer(
            self.name,
            question,
            text,
            passages,
            citations,
            ctx.llm.label,
            [retrieval, generation],
            warnings + answer_warnings,
        )
