"""Runs a set of methods over QASPER questions and keeps every result, so a run can resume.

Each (paper, question, method) result is appended to `records.jsonl` as soon as it exists; a
rerun with the same output directory skips what is already there. Papers are indexed into the
studio's library once (content hash). Scores: QASPER answer F1 against every annotator's
answer, and token-level evidence recall and F1 of the passages the method read against the
gold evidence paragraphs (best annotator). `summary.csv` holds the means per method.
"""

from __future__ import annotations

import csv
import json
import statistics
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from backend.errors import StudioError
from backend.eval.answer_f1 import answer_f1
from backend.eval.answer_f1 import normalise as _normalise
from backend.eval.qasper import QasperPaper, load_qasper
from backend.progress import ProgressFn, no_progress
from backend.studio import Studio

RECORDS = "records.jsonl"
SUMMARY = "summary.csv"
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


def evidence_scores(read: Sequence[str], gold: Sequence[Sequence[str]]) -> tuple[float, float] | None:
    """(recall, F1) of the read text's tokens against the best annotator's evidence; None without gold."""
    if not gold:
        return None
    predicted = Counter(_normalise(" ".join(read)))
    best = (0.0, 0.0)
    for paragraphs in gold:
        reference = Counter(_normalise(" ".join(paragraphs)))
        common = sum((predicted & reference).values())
        if not common:
            continue
        precision, recall = common / sum(predicted.values()), common / sum(reference.values())
        best = max(best, (recall, 2 * precision * recall / (precision + recall)), key=lambda s: s[1])
    return best


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


def _done(path: Path) -> set[tuple[str, str, str]]:
    """Keys already evaluated; drops a line cut short by a crash so appends start on a fresh line."""
    if not path.exists():
        return set()
    done, kept = set(), []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            row = json.loads(line)
            done.add((row["paper_id"], row["question_id"], row["method"]))
        except (ValueError, KeyError):
            continue
        kept.append(line)
    path.write_text("".join(f"{line}\n" for line in kept), encoding="utf-8")
    return done


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
    out_dir.mkdir(parents=True, exist_ok=True)
    records_path = out_dir / RECORDS
    done = _done(records_path)
    plan = select_questions(load_qasper(dataset), n_papers, per_paper)
    total = sum(len(qs) for _, qs in plan) * len(methods)
    count = len(done)
    progress("evaluate", count, total)
    for paper, questions in plan:
        doc_id = studio.indexer.index_file(paper.to_markdown().encode(), f"{paper.paper_id}.md").doc_id
        for question in questions:
            for method in methods:
                if (paper.paper_id, question.question_id, method) in done:
                    continue
                record = _evaluate(studio, method, paper.paper_id, question, doc_id)
                with records_path.open("a", encoding="utf-8") as handle:
                    handle.write(json.dumps(asdict(record)) + "\n")
                count += 1
                progress("evaluate", count, total)
    records = load_records(out_dir)
    write_summary(records, out_dir / SUMMARY)
    return records


def _evaluate(studio: Studio, method: str, paper_id: str, question, doc_id: str) -> EvalRecord:
    started = time.perf_counter()
    try:
        answer = studio.ask(method, question.question, [doc_id])
    except StudioError as error:
        return EvalRecord(
            paper_id,
            question.question_id,
            method,
            0.0,
            None,
            None,
            0,
            time.perf_counter() - started,
            0,
            0,
            str(error),
        )
    read = [p.text for p in answer.passages]
    scores = evidence_scores(read, question.evidence)
    return EvalRecord(
        paper_id,
        question.question_id,
        method,
        round(answer_f1(answer.text, question.answers), 4),
        None if scores is None else round(scores[0], 4),
        None if scores is None else round(scores[1], 4),
        answer.total_tokens,
        round(time.perf_counter() - started, 3),
        sum(c.calls for c in answer.costs),
        sum(len(t.split()) for t in read),
    )


def load_records(out_dir: Path) -> list[EvalRecord]:
    path = out_dir / RECORDS
    if not path.exists():
        return []
    records = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            records.append(EvalRecord(**json.loads(line)))
        except (ValueError, TypeError):
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


def write_summary(records: Sequence[EvalRecord], path: Path) -> None:
    rows = summarise(records)
    if not rows:
        return
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
