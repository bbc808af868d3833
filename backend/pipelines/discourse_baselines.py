"""The baselines Disco-RAG is measured against: planning without structure, and shallow markers.

- retrieve_and_plan: one call writes a plan (no trees, no graph) and then the answer.
- plan_and_retrieve: the generator plans from the question alone and proposes search queries;
  retrieval merges their hits with the question's, and the answer follows the plan.
- shallow_markers: every ordered chunk pair gets an explicit connective (however, because, ...)
  or NONE in one listwise call, and the answer sees those instead of RST structure. Offline, a
  heuristic takes the connective that opens the target chunk.
"""

from __future__ import annotations

import itertools
import re
import time
from collections.abc import Sequence
from typing import Any

from backend.discourse.graph_builder import label_pairs_listwise
from backend.discourse.rst_text_form import markers_text
from backend.errors import ConfigError
from backend.generation.answer import Answer, StageCost
from backend.generation.answerer import cite_reply, fit_passages, is_base_model
from backend.generation.discourse_prompts import (
    MARKER_SYSTEM,
    MARKERS,
    Section,
    fit_guided_prompt,
    marker_messages,
    plan_first_messages,
    plan_then_answer_completion_prompt,
    plan_then_answer_messages,
    read_plan_and_queries,
    repair_marker,
    split_plan_answer,
)
from backend.generation.guided_answer import generate_guided_answer
from backend.generation.prompts import COMPLETION_STOPS
from backend.llm.capability import choose_structure_llm
from backend.pipelines.disco_stages import no_passages, retrieve
from backend.pipelines.registry import RunContext, register

HEURISTIC_MARKERS = "heuristic: the connective that opens the target chunk"
_OPENING = re.compile(
    r"^\W*(" + "|".join(re.escape(m) for m in sorted(MARKERS, key=len, reverse=True)) + r")\b"
)


@register
class RetrieveAndPlan:
    name = "retrieve_and_plan"
    title = "Retrieve and plan (baseline)"
    description = (
        "Retrieve the top-k chunks, then one call writes a plan without discourse structure and the answer."
    )

    def run(self, question: str, ctx: RunContext) -> Answer:
        passages, retrieval = retrieve(question, ctx)
        if not passages:
            return no_passages(self.name, question, ctx, [retrieval])
        reply_tokens = ctx.settings.llm_max_tokens
        passages, warnings = fit_passages(question, passages, ctx.llm, 2 * reply_tokens)
        if is_base_model(ctx.llm):
            prompt = plan_then_answer_completion_prompt(question, passages)
            completion = ctx.llm.complete(prompt, max_tokens=2 * reply_tokens, stop=list(COMPLETION_STOPS))
        else:
            completion = ctx.llm.chat(
                plan_then_answer_messages(question, passages), max_tokens=2 * reply_tokens
            )
        plan, reply, problems = split_plan_answer(completion.text)
        text, citations, answer_warnings = cite_reply(reply, passages, ctx.embedder)
        cost = StageCost("plan + generate")
        cost.add(completion)
        structures = {"plan": {"text": plan, "producer": ctx.llm.label, "problems": problems}}
        return Answer(
            self.name,
            question,
            text,
            passages,
            citations,
            ctx.llm.label,
            [retrieval, cost],
            warnings + answer_warnings,
            structures,
        )


@register
class PlanAndRetrieve:
    name = "plan_and_retrieve"
    title = "Plan and retrieve (baseline)"
    description = (
        "Plan the answer and write search queries from the question alone, retrieve with the question and "
        "the queries, then answer following the plan."
    )

    def run(self, question: str, ctx: RunContext) -> Answer:
        reply_tokens = ctx.settings.llm_max_tokens
        completion = ctx.llm.chat(plan_first_messages(question), max_tokens=reply_tokens, temperature=0.0)
        plan, queries, problems = read_plan_and_queries(completion.text)
        planning = StageCost("plan")
        planning.add(completion)
        passages, retrieval = retrieve(question, ctx, queries)
        if not passages:
            return no_passages(self.name, question, ctx, [planning, retrieval])

        def sections(n: int, words: int | None) -> list[Section]:
            return [("plan", plan)] if plan else []

        kept, chosen, fit_warnings = fit_guided_prompt(ctx.llm, question, passages, sections, reply_tokens)
        text, citations, answer, answer_warnings = generate_guided_answer(
            question, kept, chosen, ctx.llm, ctx.embedder, reply_tokens
        )
        generation = StageCost("generate")
        generation.add(answer)
        record = {"text": plan, "producer": ctx.llm.label, "problems": problems, "retrieval_queries": queries}
        return Answer(
            self.name,
            question,
            text,
            kept,
            citations,
            ctx.llm.label,
            [planning, retrieval, generation],
            fit_warnings + answer_warnings,
            {"plan": record},
        )


def heuristic_markers(texts: Sequence[str]) -> dict[tuple[int, int], str]:
    """i -> j gets the connective that opens chunk j's text, the same for every source; else NONE."""
    openings = []
    for text in texts:
        match = _OPENING.match(text.lower())
        openings.append(match.group(1) if match else "NONE")
    return {(i, j): openings[j] for i, j in itertools.permutations(range(len(texts)), 2)}


@register
class ShallowMarkers:
    name = "shallow_markers"
    title = "Shallow discourse markers (baseline)"
    description = (
        "Retrieve the top-k chunks, mark every ordered pair with an explicit connective (however, because, "
        "for example, ...) or NONE, and answer with those markers instead of RST structure."
    )

    def run(self, question: str, ctx: RunContext) -> Answer:
        passages, retrieval = retrieve(question, ctx)
        if not passages:
            return no_passages(self.name, question, ctx, [retrieval])
        started = time.perf_counter()
        choice = choose_structure_llm(ctx.settings, ctx.llm)
        texts = [p.text for p in passages]
        cost = StageCost("markers")
        record: dict[str, Any] = {
            "choice": choice.reason,
            "requested": HEURISTIC_MARKERS,
            "fallback_reason": "",
        }
        markers: dict[tuple[int, int], str] = {}
        warnings: list[str] = []
        if choice.llm is not None and len(texts) > 1:
            record["requested"] = choice.llm.label
            try:
                labelled = label_pairs_listwise(
                    choice.llm,
                    texts,
                    marker_messages,
                    repair_marker,
                    MARKER_SYSTEM,
                    "CHUNK[10] -> CHUNK[10]: however",
                )
                for completion in labelled.completions:
                    cost.add(completion)
                markers = dict(labelled.lines.labels)
                warnings.extend(labelled.warnings)
                record["problems"] = [*labelled.failures, *labelled.lines.problems][:12]
                if not markers:
                    reason = "the reply held no usable 'CHUNK[i] -> CHUNK[j]: MARKER' line"
                    record["fallback_reason"] = labelled.failures[0] if labelled.failures else reason
                    why = record["fallback_reason"]
                    warnings.append(f"Markers stage: {why}; the heuristic marked the pairs instead.")
            except ConfigError as error:
                record["fallback_reason"] = error.what
        producer = choice.llm.label if markers and choice.llm is not None else HEURISTIC_MARKERS
        pairs = list(itertools.permutations(range(len(texts)), 2))
        if not markers:
            markers = heuristic_markers(texts)
        record["not_predicted"] = [list(p) for p in pairs if p not in markers]
        markers = {p: markers.get(p, "NONE") for p in pairs}
        record.update({"producer": producer, "pairs": [[i, j, m] for (i, j), m in markers.items()]})
        cost.latency_s = time.perf_counter() - started
        reply_tokens = ctx.settings.llm_max_tokens

        def sections(n: int, words: int | None) -> list[Section]:
            kept = {(i, j): m for (i, j), m in markers.items() if i < n and j < n}
            return [("discourse_markers", markers_text(kept))] if n > 1 else []

        kept, chosen, fit_warnings = fit_guided_prompt(ctx.llm, question, passages, sections, reply_tokens)
        text, citations, completion, answer_warnings = generate_guided_answer(
            question, kept, chosen, ctx.llm, ctx.embedder, reply_tokens
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
            [retrieval, cost, generation],
            warnings + fit_warnings + answer_warnings,
            {"discourse_markers": record},
        )
