"""ASQA-style long answers: each method answers the ambiguous question from its passages; ROUGE-L and STR-EM.

A reading-comprehension setting, not ASQA's open-domain one: each question's own passages (the
annotators' knowledge and the disambiguations' contexts, backend/eval/asqa.py) become one
document in the studio's library, and the method answers from it. Figures are therefore not
comparable to published open-domain ASQA results. Long answers need a model that follows
instructions, so a run refuses a model the capability probe does not pass (the embedded base
model above all) unless `allow_weak_model` is set to test the plumbing. Resumable like the
other runs: one record per (question, method) in `records.jsonl`.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from backend.errors import ConfigError, StudioError
from backend.eval.answer_f1 import strip_citations
from backend.eval.asqa import AsqaQuestion, load_asqa
from backend.eval.long_answer import rouge_l, str_em
from backend.eval.run_files import (
    RECORDS,
    append_record,
    finished_keys,
    open_run,
    read_records,
    settings_params,
    write_summary,
)
from backend.llm.base import LLMClient
from backend.llm.capability import capability
from backend.pipelines.registry import get_method
from backend.progress import ProgressFn, no_progress
from backend.studio import Studio

KIND = "asqa"
KEY = ("sample_id", "method")
METRICS = ("rouge_l", "str_em", "answer_words", "tokens", "latency_s", "llm_calls")
PERCENT = frozenset({"rouge_l", "str_em"})
"""Metrics the summary gives in percent, as ASQA reports them."""


@dataclass
class AsqaRecord:
    sample_id: str
    method: str
    rouge_l: float
    str_em: float | None
    answer_words: int
    tokens: int
    latency_s: float
    llm_calls: int
    answer: str
    error: str = ""


def model_gate(llm: LLMClient, allow_weak_model: bool) -> str:
    """The capability verdict on the answering model; refuses one that cannot write long answers.

    Raises:
        ConfigError: the probe does not pass and `allow_weak_model` is False.
    """
    report = capability(llm)
    if report.follows_formats:
        return report.summary
    if allow_weak_model:
        return f"{report.summary}; allowed to test the plumbing: the scores say nothing about the method"
    raise ConfigError(
        f"ASQA long answers need an instruction-following model, and {report.summary}.",
        "Connect Ollama or an OpenAI-compatible server (sidebar settings, or STUDIO_LLM_BACKEND and "
        "STUDIO_LLM_MODEL), or allow a weak model (--allow-weak-model) to test the plumbing only.",
    )


def answerable(questions: Sequence[AsqaQuestion]) -> list[AsqaQuestion]:
    """Questions with passages to read and references to score against."""
    return [q for q in questions if q.passages() and q.long_answers and q.qa_pairs]


def run_asqa_eval(
    studio: Studio,
    dataset: Path,
    methods: Sequence[str],
    out_dir: Path,
    *,
    n_questions: int = 5,
    split: str = "dev",
    allow_weak_model: bool = False,
    progress: ProgressFn = no_progress,
) -> list[AsqaRecord]:
    """Answer the first `n_questions` usable questions with each method, skipping those already done."""
    if not methods:
        raise ConfigError("No method chosen.", "Choose at least one answering method.")
    for method in methods:
        get_method(method)
    verdict = model_gate(studio.llm, allow_weak_model)
    params = {"dataset": str(Path(dataset).resolve()), "split": split, **settings_params(studio.settings)}
    open_run(out_dir, KIND, params)
    records_path = out_dir / RECORDS
    done = finished_keys(records_path, KEY)
    plan = answerable(load_asqa(dataset, split))[:n_questions]
    keys = [(q.sample_id, m) for q in plan for m in methods]
    total, count = len(keys), sum(key in done for key in keys)
    progress("asqa", count, total)
    for question in plan:
        if all((question.sample_id, m) in done for m in methods):
            continue
        name = f"asqa-{question.sample_id}.md"
        doc_id = studio.indexer.index_file(question.to_markdown().encode("utf-8"), name).doc_id
        for method in methods:
            if (question.sample_id, method) in done:
                continue
            append_record(records_path, asdict(_answer(studio, method, question, doc_id)))
            count += 1
            progress("asqa", count, total)
    records = load_asqa_records(out_dir)
    write_summary(out_dir, summarise_asqa(records), {**params, "model_check": verdict})
    return records


def _answer(studio: Studio, method: str, question: AsqaQuestion, doc_id: str) -> AsqaRecord:
    started = time.perf_counter()
    aliases = [pair.short_answers for pair in question.qa_pairs]
    try:
        answer = studio.ask(method, question.ambiguous_question, [doc_id])
        error = answer.failure
    except StudioError as raised:
        error = str(raised)
    if error:
        seconds = round(time.perf_counter() - started, 3)
        return AsqaRecord(question.sample_id, method, 0.0, str_em("", aliases), 0, 0, seconds, 0, "", error)
    em = str_em(answer.text, aliases)
    return AsqaRecord(
        question.sample_id,
        method,
        round(rouge_l(answer.text, question.long_answers), 4),
        None if em is None else round(em, 4),
        len(strip_citations(answer.text).split()),
        answer.total_tokens,
        round(time.perf_counter() - started, 3),
        sum(c.calls for c in answer.costs),
        answer.text,
    )


def load_asqa_records(out_dir: Path) -> list[AsqaRecord]:
    records = []
    for row in read_records(out_dir / RECORDS):
        try:
            records.append(AsqaRecord(**row))
        except TypeError:
            continue
    return records


def summarise_asqa(records: Sequence[AsqaRecord]) -> list[dict[str, float | int | str]]:
    """Means per method (ROUGE-L and STR-EM in percent; a failed answer scores 0), with counts."""
    rows = []
    for method in dict.fromkeys(r.method for r in records):
        mine = [r for r in records if r.method == method]
        row: dict[str, float | int | str] = {"method": method, "questions": len(mine)}
        row["errors"] = sum(bool(r.error) for r in mine)
        for metric in METRICS:
            values = [getattr(r, metric) for r in mine if getattr(r, metric) is not None]
            scale = 100 if metric in PERCENT else 1
            row[metric] = round(scale * statistics.fmean(values), 2) if values else float("nan")
        rows.append(row)
    return rows
