"""Builds the inter-chunk graph: listwise by an LLM, or by the trained classifier offline.

The LLM path plans its calls to fit the model's context (`graph_reader.plan_graph_calls`), reads
every reply tolerantly, and falls back to the trained classifier when no usable pair line came
back at all, recording why and saying so in a warning. A call that fails (server down, model
missing) is recorded and the other calls go on. The same listwise machinery labels pairs with
shallow discourse markers for that baseline (`label_pairs_listwise` with another prompt and label
repair).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from backend.discourse.graph_reader import (
    END_MARK,
    GRAPH_SYSTEM,
    PairLines,
    Repair,
    graph_from_pairs,
    graph_messages,
    plan_graph_calls,
    read_pair_lines,
    trim_to_tokens,
)
from backend.discourse.label_repair import repair_inter_label
from backend.discourse.relation_classifier import RelationClassifier
from backend.discourse.rhetorical_graph import Edge, RhetoricalGraph
from backend.errors import ConfigError, StudioError
from backend.llm.base import ChatMessage, Completion, LLMClient

MessagesFn = Callable[[Sequence[str], Sequence[int]], list[ChatMessage]]
_PER_CHUNK_TAG_TOKENS = 12
_PROMPT_MARGIN_TOKENS = 80
LINE_EXAMPLE = "CHUNK[10] -> CHUNK[10]: BACKGROUND_FOR"


@dataclass
class GraphBuild:
    """A graph and what building it cost and reported."""

    graph: RhetoricalGraph
    completions: list[Completion] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


@dataclass
class ListwiseLabels:
    lines: PairLines
    completions: list[Completion]
    warnings: list[str]
    failures: list[str] = field(default_factory=list)
    """One line per call that failed, naming its chunks and the error."""
    calls: int = 0


@lru_cache(maxsize=1)
def _classifier() -> RelationClassifier:
    return RelationClassifier.load_default()


def trained_graph(texts: Sequence[str]) -> GraphBuild:
    """The trained classifier's graph; all pairs UNRELATED (said so) if its weights are missing."""
    try:
        return GraphBuild(_classifier().graph(list(texts)))
    except ConfigError as error:
        k = len(texts)
        edges = [Edge(i, j, "UNRELATED") for i, j in itertools.permutations(range(k), 2)]
        graph = RhetoricalGraph(k, edges, "no graph producer available")
        return GraphBuild(graph, [], [f"No rhetorical graph: {error.what}"])


def label_pairs_listwise(
    llm: LLMClient,
    texts: Sequence[str],
    messages: MessagesFn,
    repair: Repair,
    system_prompt: str,
    line_example: str,
) -> ListwiseLabels:
    """Every ordered pair labelled in as few calls as the context allows.

    Raises:
        ConfigError: the context cannot hold even two chunks (from `plan_graph_calls`).
    """
    counts = [llm.count_tokens(t) for t in texts]
    fixed = llm.count_tokens(system_prompt) + _PROMPT_MARGIN_TOKENS + _PER_CHUNK_TAG_TOKENS * len(texts)
    line = llm.count_tokens(line_example + "\n")
    plan = plan_graph_calls(counts, llm.context_window, fixed, line)
    lines = PairLines()
    completions: list[Completion] = []
    failures: list[str] = []
    for call in plan.calls:
        cap = plan.trim_tokens
        shown = [texts[i] if cap is None else trim_to_tokens(texts[i], cap, llm.count_tokens) for i in call]
        budget = len(call) * (len(call) - 1) * line + 30
        try:
            completion = llm.chat(
                messages(shown, [i + 1 for i in call]), max_tokens=budget, temperature=0.0, stop=[END_MARK]
            )
        except StudioError as error:
            failures.append(f"the call over chunks {[i + 1 for i in call]} failed: {error}")
            continue
        completions.append(completion)
        part = read_pair_lines(completion.text, call, repair)
        for pair, label in part.labels.items():
            lines.labels.setdefault(pair, label)
        lines.problems.extend(part.problems)
        lines.repairs.extend(part.repairs)
    return ListwiseLabels(lines, completions, plan.warnings, failures, len(plan.calls))


def llm_graph(llm: LLMClient, texts: Sequence[str]) -> GraphBuild:
    """The LLM's listwise graph; the trained classifier's when no reply line could be used."""
    k = len(texts)
    if k < 2:
        return GraphBuild(RhetoricalGraph(k, [], llm.label))
    try:
        labelled = label_pairs_listwise(
            llm, texts, graph_messages, repair_inter_label, GRAPH_SYSTEM, LINE_EXAMPLE
        )
    except ConfigError as error:
        return _fallback(texts, llm.label, error.what, [], [])
    failures = labelled.failures
    if not labelled.lines.labels:
        if len(failures) == labelled.calls:
            reason = failures[0]
        else:
            reason = "the reply held no usable 'CHUNK[i] -> CHUNK[j]: LABEL' line"
            problems = labelled.lines.problems
            if problems:
                reason += f" (first problem: {problems[0]})"
        return _fallback(texts, llm.label, reason, labelled.completions, labelled.warnings)
    graph = graph_from_pairs(k, labelled.lines, llm.label)
    graph.metadata["requested"] = llm.label
    warnings = list(labelled.warnings)
    if failures:
        graph.metadata["problems"] = [*failures, *graph.metadata["problems"]]
        warnings.append(
            f"Graph stage: {len(failures)} of {labelled.calls} calls to {llm.label} failed ({failures[0]}); "
            "the pairs they covered are UNRELATED, marked as not predicted."
        )
    return GraphBuild(graph, labelled.completions, warnings)


def _fallback(
    texts: Sequence[str], requested: str, reason: str, completions: list[Completion], warnings: list[str]
) -> GraphBuild:
    build = trained_graph(texts)
    build.graph.metadata.update({"requested": requested, "fallback_reason": reason})
    notice = (
        f"Graph stage: no usable graph from {requested} ({reason}); {build.graph.producer} built it instead."
    )
    return GraphBuild(build.graph, completions, [*warnings, notice, *build.warnings])
