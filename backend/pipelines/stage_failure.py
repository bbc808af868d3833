"""When the model fails mid-run, the run ends with what it built, not with a traceback.

Structure stages fall back inside their own modules (trained parser, classifier, merge, retrieved
passages). When the answer call itself fails, the discourse methods return an Answer with no
text, the passages and structures built so far, and a warning that names the stage and the
error, so the page can still show the partial result and the evaluation can count a failure.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from backend.errors import StudioError
from backend.generation.answer import Answer, StageCost
from backend.pipelines.registry import RunContext
from backend.retrieval.search import Passage


def stage_failed(stage: str, error: StudioError | str, consequence: str) -> str:
    """The warning for a failed stage: which stage, the coded error, and what happened instead."""
    return f"The {stage} stage failed: {error} {consequence}"


def partial_answer(
    method: str,
    question: str,
    ctx: RunContext,
    stage: str,
    error: StudioError,
    *,
    passages: Sequence[Passage],
    costs: Sequence[StageCost],
    warnings: Sequence[str],
    structures: dict[str, Any],
) -> Answer:
    """An Answer without text that keeps the passages and structures built before `stage` failed."""
    kept = "No answer was written; the passages and structures built before it are kept."
    return Answer(
        method,
        question,
        "",
        list(passages),
        [],
        ctx.llm.label,
        list(costs),
        [*warnings, stage_failed(stage, error, kept)],
        dict(structures),
        failed_stage=stage,
    )
