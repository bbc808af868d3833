"""Full-context baseline: the selected documents read whole, cut to the model's context."""

from __future__ import annotations

from backend.generation.answer import Answer, StageCost
from backend.generation.answerer import fit_passages, generate_cited_answer
from backend.pipelines.registry import RunContext, register
from backend.retrieval.search import Passage


@register
class FullContext:
    name = "full_context"
    title = "Full context"
    description = "No retrieval: the selected documents in reading order, truncated to the model's context."

    def run(self, question: str, ctx: RunContext) -> Answer:
        passages = []
        for doc_id in ctx.selected_ids():
            doc = ctx.library.get(doc_id)
            passages.extend(
                Passage(c.id, doc.id, doc.name, doc.chunk_text(c), c.start, c.end, c.pages)
                for c in doc.chunks
            )
        if not passages:
            return Answer(
                self.name,
                question,
                "",
                [],
                [],
                ctx.llm.label,
                [],
                ["The selected documents hold no text to read."],
            )
        kept, warnings = fit_passages(question, passages, ctx.llm, ctx.settings.llm_max_tokens)
        if len(kept) < len(passages):
            share = 100 * sum(len(p.text) for p in kept) / sum(len(p.text) for p in passages)
            warnings = [
                f"Truncated: the model read the first {share:.0f}% of the text "
                f"({len(kept)} of {len(passages)} chunks) to fit its {ctx.llm.context_window}-token context."
            ]
        text, citations, completion, answer_warnings = generate_cited_answer(
            question, kept, ctx.llm, ctx.embedder, ctx.settings.llm_max_tokens
        )
        generation = StageCost("generate")
        generation.add(completion)
        return Answer(
            self.name,
            question,
            text,
            kept,
            citations,
            ctx.llm.label,
            [generation],
            warnings + answer_warnings,
        )
