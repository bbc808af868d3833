"""The combined pipeline: DISRetrieval finds evidence, RDR2 routes around it, Disco-RAG answers.

None of the three papers chains them. The discourse tree's dual selection picks sentences across
the selected documents; each document it touches is routed through its heading tree starting
from the sections that evidence lies in (so the router can widen a sentence into its paragraph or
open a neighbouring section, or refuse a false hit); the routed passages then get chunk trees, a
rhetorical graph and a plan, and one guided, cited answer. Every stage leaves its record in
`Answer.structures`, so the Ask page shows each with the viewer its own method uses.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from backend.generation.answer import Answer, StageCost
from backend.pipelines.discourse_answer import answer_with_discourse
from backend.pipelines.disretrieval import summariser_for, tree_build_cost, usable_documents
from backend.pipelines.rdr2 import route_passages
from backend.pipelines.registry import RunContext, register
from backend.retrieval.embedder import Embedder
from backend.retrieval.search import Passage
from backend.retrieval.tree_index import TreeIndex
from backend.retrieval.tree_retrieval import tree_retrieve
from backend.routing.route import RouteOptions


def closest_passages(
    question: str, passages: Sequence[Passage], embedder: Embedder, limit: int
) -> tuple[list[Passage], int]:
    """At most `limit` passages, the most similar to the question, kept in their reading order;
    and how many were dropped. Trees and the graph grow with every passage, so they are capped."""
    if len(passages) <= limit:
        return list(passages), 0
    vectors = embedder.encode([question, *(p.text for p in passages)])
    scores = vectors[1:] @ vectors[0]
    keep = set(np.argsort(-scores, kind="stable")[:limit].tolist())
    return [p for i, p in enumerate(passages) if i in keep], len(passages) - limit


@dataclass
class CombinedEvidence:
    """What the first two stages hand to Disco-RAG's: passages, and their costs, warnings, records."""

    passages: list[Passage]
    costs: list[StageCost]
    warnings: list[str]
    structures: dict[str, object]


def combined_evidence(question: str, ctx: RunContext) -> CombinedEvidence:
    """Discourse-tree evidence, routed within its documents and capped at k passages."""
    docs, warnings = usable_documents(ctx)
    if not docs:
        warnings.append("No documents to search: the selection is empty or not indexed.")
        return CombinedEvidence([], [], warnings, {})
    summariser, reason = summariser_for("disretrieval", ctx)
    index = TreeIndex(ctx.settings, ctx.embedder, ctx.store)
    found = tree_retrieve(question, docs, "disretrieval", index, summariser, reason)
    costs = [tree_build_cost(found), StageCost("retrieve", latency_s=found.select_s)]
    for item in found.forest:
        warnings.extend(f"{item.tree.doc_id}: {w}" for w in item.tree.warnings)
    structures: dict[str, object] = {"discourse_selection": found.record.to_dict()}
    if not found.passages:
        warnings.append("The discourse trees selected no evidence: the documents have no text.")
        return CombinedEvidence([], costs, warnings, structures)
    options = RouteOptions(max_expansions=ctx.settings.rdr2_max_expansions)
    routed = route_passages(question, found.passages, ctx, options)
    costs.append(routed.cost)
    warnings.extend(routed.warnings)
    structures["trajectory"] = routed.record.to_dict()
    started = time.perf_counter()
    passages, dropped = closest_passages(question, routed.passages, ctx.embedder, ctx.settings.top_k)
    costs.append(StageCost("cap passages", latency_s=time.perf_counter() - started))
    if dropped:
        warnings.append(
            f"Routing chose {len(routed.passages)} passages; the {len(passages)} closest to the "
            f"question (k={ctx.settings.top_k}) get trees, graph and plan, {dropped} were left out."
        )
    return CombinedEvidence(passages, costs, warnings, structures)


@register
class Combined:
    name = "combined"
    title = "Combined: DISRetrieval → RDR2 → Disco-RAG"
    description = (
        "Evidence from the discourse tree's dual selection, routed through each document's heading "
        "tree, then chunk RST trees, a rhetorical graph and a plan guide one cited answer."
    )

    def run(self, question: str, ctx: RunContext) -> Answer:
        found = combined_evidence(question, ctx)
        if not found.passages:
            return Answer(
                self.name, question, "", [], [], ctx.llm.label, found.costs, found.warnings, found.structures
            )
        return answer_with_discourse(
            self.name,
            question,
            found.passages,
            ctx,
            costs=found.costs,
            warnings=found.warnings,
            structures=found.structures,
        )
