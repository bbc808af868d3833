"""Disco-RAG: chunk RST trees, an inter-chunk rhetorical graph and a plan guide one cited answer.

Retrieve the top-k chunks; parse each into an RST tree (cached per chunk and producer); label
every ordered pair of chunks in one listwise call; let the generator plan the answer from the
question, chunks, trees and graph; then answer with all of it in the prompt. Trees and graph come
from an LLM when `choose_structure_llm` picks one, else from the trained producers; the plan and
the answer always come from the generator. The ablations switch one stage off each.
"""

from __future__ import annotations

from typing import ClassVar

from backend.generation.answer import Answer
from backend.pipelines.disco_stages import no_passages, retrieve
from backend.pipelines.discourse_answer import DiscourseStages, answer_with_discourse
from backend.pipelines.registry import RunContext, register


class _DiscoRAG:
    name: ClassVar[str]
    title: ClassVar[str]
    description: ClassVar[str]
    stages: ClassVar[DiscourseStages] = DiscourseStages()

    def run(self, question: str, ctx: RunContext) -> Answer:
        passages, retrieval = retrieve(question, ctx)
        if not passages:
            return no_passages(self.name, question, ctx, [retrieval])
        return answer_with_discourse(self.name, question, passages, ctx, self.stages, [retrieval])


@register
class DiscoRAG(_DiscoRAG):
    name = "disco_rag"
    title = "Disco-RAG"
    description = (
        "Retrieve the top-k chunks, build an RST tree per chunk and a rhetorical graph between chunks, "
        "plan the answer from them, then answer with citations guided by trees, graph and plan."
    )


@register
class DiscoRAGNoTree(_DiscoRAG):
    name = "disco_rag_no_tree"
    title = "Disco-RAG without RST trees"
    description = "Disco-RAG ablation: the rhetorical graph and the plan, but no tree inside each chunk."
    stages = DiscourseStages(trees=False)


@register
class DiscoRAGNoGraph(_DiscoRAG):
    name = "disco_rag_no_graph"
    title = "Disco-RAG without the rhetorical graph"
    description = "Disco-RAG ablation: chunk trees and the plan, but no relations between chunks."
    stages = DiscourseStages(graph=False)


@register
class DiscoRAGNoPlan(_DiscoRAG):
    name = "disco_rag_no_plan"
    title = "Disco-RAG without the plan"
    description = (
        "Disco-RAG ablation: chunk trees and the rhetorical graph go straight to the answer, unplanned."
    )
    stages = DiscourseStages(plan=False)
