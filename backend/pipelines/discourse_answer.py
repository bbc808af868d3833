"""The Disco-RAG back half: chunk trees, the rhetorical graph and a plan guide one cited answer.

Shared by Disco-RAG (over retrieved chunks) and the combined pipeline (over routed passages), so
both build, record and cost their structures the same way. A model that fails mid-run never loses
what was built: trees and graph fall back inside their stages (and say so here), a failed plan
leaves the answer unplanned, and a failed answer call returns the structures without text.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from backend.discourse.rhetorical_graph import RhetoricalGraph
from backend.discourse.rst_tree import RSTTree
from backend.discourse.tree_cache import TreeCache
from backend.errors import StudioError
from backend.generation.answer import Answer, StageCost
from backend.generation.discourse_prompts import Section, fit_guided_prompt
from backend.generation.guided_answer import generate_guided_answer
from backend.generation.planner import PLAN_SYSTEM, Plan, make_plan
from backend.llm.capability import choose_structure_llm
from backend.pipelines.disco_stages import build_graph, chunk_parser_for, parse_trees, structure_sections
from backend.pipelines.registry import RunContext
from backend.pipelines.stage_failure import partial_answer, stage_failed
from backend.retrieval.search import Passage


@dataclass(frozen=True)
class DiscourseStages:
    """Which Disco-RAG stages run; the ablations switch one off each."""

    trees: bool = True
    graph: bool = True
    plan: bool = True


def tree_warnings(records: Sequence[dict[str, Any]]) -> list[str]:
    """One line each for chunk trees whose model call failed and for replies that could not be read."""
    outcomes = [r["outcome"] for r in records if r["outcome"]["status"] == "fallback" and not r["cache_hit"]]
    failed = [o for o in outcomes if o.get("call_failed")]
    unreadable = [o for o in outcomes if not o.get("call_failed") and o["requested"] != o["producer"]]
    warnings = []
    if failed:
        warnings.append(
            f"Parse trees stage: {len(failed)} of {len(records)} chunks got no tree from the model "
            f"({failed[0]['fallback_reason']}); their trees come from {failed[0]['producer']} and are not "
            "cached, so the next run asks the model again."
        )
    if unreadable:
        warnings.append(
            f"Parse trees stage: {len(unreadable)} of {len(records)} replies could not be read as a tree "
            f"({unreadable[0]['fallback_reason']}); {unreadable[0]['producer']} built those trees."
        )
    return warnings


def answer_with_discourse(
    method: str,
    question: str,
    passages: Sequence[Passage],
    ctx: RunContext,
    stages: DiscourseStages = DiscourseStages(),
    costs: Sequence[StageCost] = (),
    warnings: Sequence[str] = (),
    structures: dict[str, object] | None = None,
) -> Answer:
    """Trees, graph and plan over `passages`, then the guided answer; earlier stages' costs,
    warnings and structures are carried into the Answer."""
    choice = choose_structure_llm(ctx.settings, ctx.llm)
    costs = list(costs)
    warnings = list(warnings)
    structures = dict(structures or {})
    trees: list[RSTTree] | None = None
    graph: RhetoricalGraph | None = None
    if stages.trees:
        tree_stage = parse_trees(
            passages, chunk_parser_for(choice), TreeCache(ctx.settings.data_dir), choice.reason
        )
        trees = tree_stage.trees
        structures["rst_trees"] = tree_stage.records
        costs.append(tree_stage.cost)
        warnings.extend(tree_warnings(tree_stage.records))
    if stages.graph:
        graph_stage = build_graph(passages, choice)
        graph = graph_stage.graph
        structures["rhetorical_graph"] = graph_stage.record
        costs.append(graph_stage.cost)
        warnings.extend(graph_stage.warnings)
    reply_tokens = ctx.settings.llm_max_tokens
    plan_text = ""
    if stages.plan:

        def plan_sections(n: int, words: int | None) -> list[Section]:
            return structure_sections(n, words, trees, graph)

        kept, sections, fit_warnings = fit_guided_prompt(
            ctx.llm, question, passages, plan_sections, reply_tokens, system=PLAN_SYSTEM
        )
        try:
            plan = make_plan(ctx.llm, question, kept, sections, reply_tokens)
        except StudioError as error:
            warning = stage_failed("plan", error, "The answer is written without a plan.")
            plan = Plan("", ctx.llm.label, None, [warning])
            warnings.append(warning)
        plan_text = plan.text
        structures["plan"] = plan.to_dict()
        cost = StageCost("plan")
        if plan.completion is not None:
            cost.add(plan.completion)
        costs.append(cost)
        warnings.extend(f"Plan: {w}" for w in fit_warnings)

    def answer_sections(n: int, words: int | None) -> list[Section]:
        return structure_sections(n, words, trees, graph, plan_text)

    kept, sections, fit_warnings = fit_guided_prompt(
        ctx.llm, question, passages, answer_sections, reply_tokens
    )
    try:
        text, citations, completion, answer_warnings = generate_guided_answer(
            question, kept, sections, ctx.llm, ctx.embedder, reply_tokens
        )
    except StudioError as error:
        return partial_answer(
            method,
            question,
            ctx,
            "generate",
            error,
            passages=kept,
            costs=costs,
            warnings=warnings + fit_warnings,
            structures=structures,
        )
    generation = StageCost("generate")
    generation.add(completion)
    costs.append(generation)
    return Answer(
        method,
        question,
        text,
        kept,
        citations,
        ctx.llm.label,
        costs,
        warnings + fit_warnings + answer_warnings,
        structures,
    )
