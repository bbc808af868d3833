"""The Disco-RAG back half: chunk trees, the rhetorical graph and a plan guide one cited answer.

Shared by Disco-RAG (over retrieved chunks) and the combined pipeline (over routed passages), so
both build, record and cost their structures the same way.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from backend.discourse.rhetorical_graph import RhetoricalGraph
from backend.discourse.rst_tree import RSTTree
from backend.discourse.tree_cache import TreeCache
from backend.generation.answer import Answer, StageCost
from backend.generation.discourse_prompts import Section, fit_guided_prompt
from backend.generation.guided_answer import generate_guided_answer
from backend.generation.planner import PLAN_SYSTEM, make_plan
from backend.llm.capability import choose_structure_llm
from backend.pipelines.disco_stages import build_graph, chunk_parser_for, parse_trees, structure_sections
from backend.pipelines.registry import RunContext
from backend.retrieval.search import Passage


@dataclass(frozen=True)
class DiscourseStages:
    """Which Disco-RAG stages run; the ablations switch one off each."""

    trees: bool = True
    graph: bool = True
    plan: bool = True


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
        plan = make_plan(ctx.llm, question, kept, sections, reply_tokens)
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
    text, citations, completion, answer_warnings = generate_guided_answer(
        question, kept, sections, ctx.llm, ctx.embedder, reply_tokens
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
