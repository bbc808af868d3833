"""RDR2: retrieve, route through each document's structure, then read the routed passages.

Retrieve the top-k chunks; for each document they come from, light the retrieval subtree and
let a router ANSWER, EXPAND or refuse step by step (the trajectory is kept for the viewer);
read every routed passage together with the cited answerer. The router is the LLM when
`choose_structure_llm` picks one, else the offline embedding router. The ablations switch off
expansion, refusal, or the structure itself (accept or refuse retrieved passages only).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from backend.errors import StudioError
from backend.generation.answer import Answer, StageCost
from backend.generation.answerer import fit_passages, generate_cited_answer
from backend.llm.capability import choose_structure_llm
from backend.pipelines.registry import RunContext, register
from backend.pipelines.stage_failure import partial_answer, stage_failed
from backend.retrieval.search import Passage, retrieve_chunks
from backend.routing.document_trees import structure_tree_for
from backend.routing.route import RouteOptions, RoutingResult, route_documents
from backend.routing.router import LLMRouter, OfflineRouter, Router
from backend.routing.trajectory import RoutingRecord


@dataclass
class RoutingStage:
    """Routed passages (the retrieved ones when the router chose none), with cost and record."""

    passages: list[Passage]
    cost: StageCost
    record: RoutingRecord
    warnings: list[str]


def route_passages(
    question: str, retrieved: Sequence[Passage], ctx: RunContext, options: RouteOptions
) -> RoutingStage:
    """Route through the structure tree of every document `retrieved` touches."""
    choice = choose_structure_llm(ctx.settings, ctx.llm)
    router: Router = LLMRouter(choice.llm) if choice.llm is not None else OfflineRouter(ctx.embedder)
    started = time.perf_counter()
    result = route_documents(
        question,
        retrieved,
        documents=ctx.library.get,
        tree_for=lambda doc: structure_tree_for(doc, ctx.library),
        router=router,
        options=options,
    )
    cost = StageCost(
        "route",
        calls=result.calls if choice.llm is not None else 0,
        prompt_tokens=result.prompt_tokens,
        completion_tokens=result.completion_tokens,
        latency_s=time.perf_counter() - started,
    )
    warnings = _routing_warnings(result, router, choice.llm is not None)
    record = RoutingRecord(
        router=router.producer,
        reason=choice.reason,
        max_expansions=options.max_expansions,
        allow_expand=options.allow_expand,
        allow_refuse=options.allow_refuse,
        use_structure=options.use_structure,
        routes=result.routes,
        warnings=list(warnings),
    )
    return RoutingStage(result.passages or list(retrieved), cost, record, warnings)


class _RDR2:
    name: ClassVar[str]
    title: ClassVar[str]
    description: ClassVar[str]
    allow_expand: ClassVar[bool] = True
    allow_refuse: ClassVar[bool] = True
    use_structure: ClassVar[bool] = True

    def run(self, question: str, ctx: RunContext) -> Answer:
        started = time.perf_counter()
        retrieved = retrieve_chunks(
            question,
            embedder=ctx.embedder,
            store=ctx.store,
            library=ctx.library,
            k=ctx.settings.top_k,
            doc_ids=ctx.doc_ids,
        )
        costs = [StageCost("retrieve", latency_s=time.perf_counter() - started)]
        if not retrieved:
            warning = "No passages were found: the selected documents are empty or not indexed."
            return Answer(self.name, question, "", [], [], ctx.llm.label, costs, [warning])
        options = RouteOptions(
            max_expansions=ctx.settings.rdr2_max_expansions if self.allow_expand else 0,
            allow_expand=self.allow_expand,
            allow_refuse=self.allow_refuse,
            use_structure=self.use_structure,
        )
        routed = route_passages(question, retrieved, ctx, options)
        costs.append(routed.cost)
        passages, fit_warnings = fit_passages(question, routed.passages, ctx.llm, ctx.settings.llm_max_tokens)
        structures = {"trajectory": routed.record.to_dict()}
        try:
            text, citations, completion, answer_warnings = generate_cited_answer(
                question, passages, ctx.llm, ctx.embedder, ctx.settings.llm_max_tokens
            )
        except StudioError as error:
            return partial_answer(
                self.name,
                question,
                ctx,
                "generate",
                error,
                passages=passages,
                costs=costs,
                warnings=routed.warnings + fit_warnings,
                structures=structures,
            )
        generation = StageCost("generate")
        generation.add(completion)
        costs.append(generation)
        return Answer(
            self.name,
            question,
            text,
            passages,
            citations,
            ctx.llm.label,
            costs,
            routed.warnings + fit_warnings + answer_warnings,
            structures,
        )


def _routing_warnings(result: RoutingResult, router: Router, is_llm: bool) -> list[str]:
    """Say who routed, how many replies were unusable, and when the retrieved passages stood in."""
    warnings = []
    if not is_llm:
        warnings.append(f"Routed by the {router.producer}: no capable LLM router is configured.")
    if result.failure:
        warnings.append(
            stage_failed(
                "route",
                result.failure,
                "Routing stopped there; the steps before it are kept, and documents without a routed "
                "passage are read from their retrieved passages.",
            )
        )
    if result.unusable_replies:
        warnings.append(
            f"{result.unusable_replies} of {result.calls} router replies were unusable (no valid "
            "[ANSWER]/[EXPAND] id and no refusal); see the trajectory for the raw replies."
        )
    if not result.passages:
        reasons = ", ".join(sorted({r.stop_reason for r in result.routes}))
        warnings.append(
            f"The router chose no passage ({reasons}); the answer reads the retrieved passages instead."
        )
    return warnings


@register
class RDR2(_RDR2):
    name = "rdr2"
    title = "RDR2 (document routing)"
    description = (
        "Retrieve the top-k chunks, then route through each document's heading tree: a router answers "
        "with paragraphs, expands collapsed sections or refuses, step by step; routed paragraphs are read."
    )


@register
class RDR2NoExpand(_RDR2):
    name = "rdr2_no_expand"
    title = "RDR2 without EXPAND"
    description = "RDR2 ablation: the router may only answer with or refuse the initially lit paragraphs."
    allow_expand = False


@register
class RDR2NoRefuse(_RDR2):
    name = "rdr2_no_refuse"
    title = "RDR2 without refusal"
    description = "RDR2 ablation: the router must answer or expand at every step; refusals are dropped."
    allow_refuse = False


@register
class RDR2NoStructure(_RDR2):
    name = "rdr2_no_structure"
    title = "RDR2 without structure"
    description = "RDR2 ablation: no heading tree; the router accepts or refuses each retrieved passage."
    allow_expand = False
    use_structure = False
