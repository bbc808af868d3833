"""Runs a set of methods over QASPER questions and keeps every result, so a run can resume.

Each (paper, question, method) result is appended to `records.jsonl` as soon as it exists; a
rerun with the same output directory skips what is already there (backend/eval/run_files.py).
Papers are indexed into the studio's library once (content hash). Scores: QASPER answer F1
against every annotator's answer, and token-level evidence recall and F1 of the passages the
method read against the gold evidence paragraphs (backend/eval/evidence_f1.py: best-F1
annotator, with that annotator's recall). `summary.csv` and `summary.json` hold the means per
method.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from backend.errors import StudioError
from backend.eval.answer_f1 import answer_f1
from backend.eval.evidence_f1 import evidence_score
from backend.eval.qasper import QasperPaper, QasperQuestion, load_qasper
from backend.eval.run_files import (
    RECORDS,
    append_record,
    finished_keys,
    open_run,
    read_records,
    settings_params,
    write_summary,
)
from backend.progress import ProgressFn, no_progress
from backend.studio import Studio

KIND = "qa"
KEY = ("paper_id", "question_id", "method")
METRICS = ("answer_f1", "evidence_recall", "evidence_f1", "tokens", "latency_s", "llm_calls")


@dataclass
class EvalRecord:
    paper_id: str
    question_id: str
    method: str
    answer_f1: float
    evidence_recall: float | None
    evidence_f1: float | None
    tokens: int
    latency_s: float
    llm_calls: int
    evidence_words: int
    error: str = ""


def evidence_fields(read: Sequence[str], gold: Sequence[Sequence[str]]) -> tuple[float | None, float | None]:
    """(recall, F1) of the read passages against the gold evidence, rounded; (None, None) without gold."""
    if not gold:
        return None, None
    score = evidence_score(" ".join(read), gold)
    return round(score.recall, 4), round(score.f1, 4)


def select_questions(
    papers: Sequence[QasperPaper], n_papers: int, per_paper: int
) -> list[tuple[QasperPaper, list]]:
    """The first papers (file order) with answerable questions, and their first questions."""
    chosen = []
    for paper in papers:
        questions = [q for q in paper.questions if q.evidence and q.answers][:per_paper]
        if questions:
            chosen.append((paper, questions))
        if len(chosen) == n_papers:
            break
    return chosen


def run_qa_eval(
    studio: Studio,
    dataset: Path,
    methods: Sequence[str],
    out_dir: Path,
    *,
    n_papers: int = 5,
    per_paper: int = 3,
    progress: ProgressFn = no_progress,
) -> list[EvalRecord]:
    """Evaluate `methods`, skipping results already in `out_dir`; returns every record there."""
    params = {"dataset": str(Path(dataset).resolve()), **settings_params(studio.settings)}
    open_run(out_dir, KIND, params)
    records_path = out_dir / RECORDS
    done = finished_keys(records_path, KEY)
    plan = select_questions(load_qasper(dataset), n_papers, per_paper)
    keys = [(paper.paper_id, q.question_id, m) for paper, qs in plan for q in qs for m in methods]
    total, count = len(keys), sum(key in done for key in keys)
    progress("evaluate", count, total)
    for paper, questions in plan:
        doc_id = studio.indexer.index_file(paper.to_markdown().encode(), f"{paper.paper_id}.md").doc_id
        for question in questions:
            for method in methods:
                if (paper.paper_id, question.question_id, method) in done:
                    continue
                record = evaluate_question(studio, method, paper.paper_id, question, doc_id)
                append_record(records_path, asdict(record))
                count += 1
                progress("evaluate", count, total)
    records = load_records(out_dir)
    write_summary(out_dir, summarise(records), params)
    return records


def evaluate_question(
    studio: Studio, method: str, paper_id: str, question: QasperQuestion, doc_id: str
) -> EvalRecord:
    """One method on one question; a raised error or a failed stage becomes an error record."""
    started = time.perf_counter()
    try:
        answer = studio.ask(method, question.question, [doc_id])
        error = answer.failure
    except StudioError as raised:
        error = str(raised)
    if error:
        seconds = round(time.perf_counter() - started, 3)
        return EvalRecord(paper_id, question.question_id, method, 0.0, None, None, 0, seconds, 0, 0, error)
    read = [p.text for p in answer.passages]
    recall, f1 = evidence_fields(read, question.evidence)
    return EvalRecord(
        paper_id,
        question.question_id,
        method,
        round(answer_f1(answer.text, question.answers), 4),
        recall,
        f1,
        answer.total_tokens,
        round(time.perf_counter() - started, 3),
        sum(c.calls for c in answer.costs),
        sum(len(t.split()) for t in read),
    )


def load_records(out_dir: Path) -> list[EvalRecord]:
    """The run's records, skipping lines that no longer match the record fields."""
    records = []
    for row in read_records(out_dir / RECORDS):
        try:
            records.append(EvalRecord(**row))
        except TypeError:
            continue
    return records


def summarise(records: Sequence[EvalRecord]) -> list[dict[str, float | int | str]]:
    """Mean of each metric per method (None values skipped), plus counts of questions and errors."""
    rows = []
    for method in dict.fromkeys(r.method for r in records):
        mine = [r for r in records if r.method == method]
        row: dict[str, float | int | str] = {"method": method, "questions": len(mine)}
        row["errors"] = sum(bool(r.error) for r in mine)
        for metric in METRICS:
            values = [getattr(r, metric) for r in mine if getattr(r, metric) is not None]
            row[metric] = round(statistics.fmean(values), 4) if values else float("nan")
        rows.append(row)
    return rows
