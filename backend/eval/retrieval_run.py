"""Retrieval on QASPER: token-level evidence F1 and recall of what each retriever selects at word budgets.

One code path for the Evaluate CLI, the Evaluate page and benchmarks/retrieval_qasper.py. Each
paper is ingested as Markdown (section names become headings), each retriever's tree is built
or loaded (merge-only node texts unless a summariser is given), and every question with text
evidence selects up to each budget of words from its own paper. The selected text, in document
order, is scored against each annotator's evidence (backend/eval/evidence_f1.py: best-F1
annotator, with that annotator's recall). A run appends one record per (paper, question,
retriever, budget) and skips the ones already recorded, so it resumes after an interruption.
"""

from __future__ import annotations

import statistics
from collections.abc import Collection, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from backend.config import Settings
from backend.errors import ConfigError
from backend.eval.evidence_f1 import evidence_score
from backend.eval.qasper import QasperPaper, QasperQuestion, load_qasper
from backend.eval.run_files import (
    RECORDS,
    append_record,
    finished_keys,
    open_run,
    read_records,
    write_summary,
)
from backend.ingest.document import Document
from backend.pipelines.disretrieval import summariser_for
from backend.pipelines.registry import RunContext
from backend.progress import ProgressFn, no_progress
from backend.retrieval.dual_selection import dual_select
from backend.retrieval.embedder import Embedder
from backend.retrieval.node_text import Summariser
from backend.retrieval.selection import IndexedTree, Selection, selection_text
from backend.retrieval.tree_index import ENHANCED, TreeIndex
from backend.retrieval.tree_retrieval import select
from backend.studio import Studio

KIND = "retrieval"
KEY = ("paper_id", "question_id", "method", "budget")
DEFAULT_BUDGETS = (200, 300, 400)
BUILD_ORDER = ("flatten_sentence", "flatten_chunk", "bisection", "disretrieval", "raptor")


@dataclass(frozen=True)
class Retriever:
    """One benchmark row: a tree method, selecting with its own strategy or with a fixed context weight."""

    name: str
    method: str
    context_weight: float | None = None

    def select(self, item: IndexedTree, query: np.ndarray, budget: int, k: int) -> Selection:
        if self.context_weight is None:
            return select(self.method, [item], query, budget, k)
        return dual_select([item], query, budget, k, self.context_weight)


RETRIEVERS: dict[str, Retriever] = {
    r.name: r
    for r in (
        Retriever("flatten_chunk", "flatten_chunk"),
        Retriever("flatten_sentence", "flatten_sentence"),
        Retriever("raptor", "raptor"),
        Retriever("bisection", "bisection"),
        Retriever("bisection (paper ranking)", "bisection", 1.0),
        Retriever("disretrieval", "disretrieval"),
        Retriever("disretrieval (paper ranking)", "disretrieval", 1.0),
    )
}
"""Rows "(paper ranking)" use the DISRetrieval paper's plain cosine ranking (context weight 1)."""
DEFAULT_RETRIEVERS = ("disretrieval", "bisection", "raptor", "flatten_chunk", "flatten_sentence")


@dataclass
class RetrievalRecord:
    paper_id: str
    question_id: str
    method: str
    budget: int
    f1: float
    recall: float
    precision: float
    annotator: int
    words: int


def retrievers(names: Sequence[str]) -> list[Retriever]:
    """The named retrievers in the order given.

    Raises:
        ConfigError: a name is unknown, or none is given.
    """
    unknown = [n for n in names if n not in RETRIEVERS]
    if unknown or not names:
        raise ConfigError(
            f"Unknown retriever(s): {', '.join(map(repr, unknown)) or '(none given)'}.",
            f"Choose from: {', '.join(RETRIEVERS)}.",
        )
    return [RETRIEVERS[n] for n in names]


def chosen_papers(papers: Sequence[QasperPaper], skip: int, count: int) -> list[QasperPaper]:
    """Papers in file order after `skip`, keeping those with at least one question with text evidence."""
    usable = [p for p in papers[skip:] if any(q.evidence for q in p.questions)]
    return usable[:count]


def evidence_questions(paper: QasperPaper) -> list[QasperQuestion]:
    return [q for q in paper.questions if q.evidence]


def build_trees(
    studio: Studio,
    doc: Document,
    methods: Collection[str],
    settings: Settings | None = None,
    summariser: Summariser | None = None,
    embedders: Mapping[str, Embedder] | None = None,
) -> tuple[dict[str, IndexedTree], dict[str, float]]:
    """Each method's tree for `doc` (built or loaded) and its build seconds.

    `settings` overrides the studio's (e.g. another tau); `embedders` gives a method its own
    embedder so no method is timed on another's cached embeddings.
    """
    settings = settings or studio.settings
    items, seconds = {}, {}
    for method in (m for m in BUILD_ORDER if m in methods):
        embedder = (embedders or {}).get(method, studio.embedder)
        index = TreeIndex(settings, embedder, studio.store)
        items[method], report = index.get(doc, method, summariser if method in ENHANCED else None)
        seconds[method] = report.total_s
    return items, seconds


def score_paper(
    items: Mapping[str, IndexedTree],
    paper_id: str,
    questions: Sequence[QasperQuestion],
    vectors: np.ndarray,
    rows: Sequence[Retriever],
    budgets: Sequence[int],
    k: int,
    done: Collection[tuple] = (),
) -> Iterator[RetrievalRecord]:
    """One record per question, retriever and budget not in `done` (keys as `KEY`)."""
    for question, vector in zip(questions, vectors, strict=True):
        for row in rows:
            for budget in budgets:
                if (paper_id, question.question_id, row.name, budget) in done:
                    continue
                item = items[row.method]
                chosen = row.select(item, vector, budget, k)
                score = evidence_score(selection_text([item], chosen), question.evidence)
                yield RetrievalRecord(
                    paper_id,
                    question.question_id,
                    row.name,
                    budget,
                    score.f1,
                    score.recall,
                    score.precision,
                    score.annotator,
                    chosen.words,
                )


def structure_summariser(studio: Studio) -> tuple[Summariser | None, str]:
    """Who would write DISRetrieval's node summaries under the studio's settings, and why."""
    ctx = RunContext(studio.settings, studio.llm, studio.embedder, studio.store, studio.library)
    return summariser_for("disretrieval", ctx)


def run_params(studio: Studio, dataset: Path, summariser: Summariser | None) -> dict[str, object]:
    """What a run's numbers depend on besides its rows: a resumed run must match them."""
    settings = studio.settings
    return {
        "dataset": str(Path(dataset).resolve()),
        "embedder": settings.embedding_model,
        "chunk_tokens": settings.chunk_tokens,
        "k": settings.disr_subtree_k,
        "summaries": summariser.label if summariser else "merge-only",
        "tau": settings.disr_tau_words if summariser else None,
    }


def run_retrieval_eval(
    studio: Studio,
    dataset: Path,
    out_dir: Path,
    *,
    methods: Sequence[str] = DEFAULT_RETRIEVERS,
    budgets: Sequence[int] = DEFAULT_BUDGETS,
    n_papers: int = 5,
    skip: int = 0,
    summariser: Summariser | None = None,
    progress: ProgressFn = no_progress,
) -> list[RetrievalRecord]:
    """Score `methods` at `budgets`, skipping rows already in `out_dir`; returns every record there."""
    rows = retrievers(methods)
    if not budgets or min(budgets) < 1:
        raise ConfigError(
            f"Budgets must be positive word counts, got {list(budgets)}.",
            "Give word counts such as 200, 300 and 400.",
        )
    params = run_params(studio, dataset, summariser)
    open_run(out_dir, KIND, params)
    records_path = out_dir / RECORDS
    done = finished_keys(records_path, KEY)
    plan = [(p, evidence_questions(p)) for p in chosen_papers(load_qasper(dataset), skip, n_papers)]
    keys = [
        (p.paper_id, q.question_id, r.name, b) for p, qs in plan for q in qs for r in rows for b in budgets
    ]
    total, count = len(keys), sum(key in done for key in keys)
    progress("retrieval", count, total)
    for paper, questions in plan:
        needed = {
            r.method
            for r in rows
            if any((paper.paper_id, q.question_id, r.name, b) not in done for q in questions for b in budgets)
        }
        if not needed:
            continue
        progress(f"{paper.paper_id}: ingesting and building trees", count, total)
        report = studio.indexer.index_file(paper.to_markdown().encode("utf-8"), f"{paper.paper_id}.md")
        items, _ = build_trees(studio, report.document, needed, summariser=summariser)
        vectors = studio.embedder.encode([q.question for q in questions])
        mine = [r for r in rows if r.method in needed]
        k = studio.settings.disr_subtree_k
        for record in score_paper(items, paper.paper_id, questions, vectors, mine, budgets, k, done):
            append_record(records_path, asdict(record))
            count += 1
            progress("retrieval", count, total)
    records = load_retrieval_records(out_dir)
    write_summary(out_dir, summarise_retrieval(records), {**params, "budgets": list(budgets)})
    return records


def load_retrieval_records(out_dir: Path) -> list[RetrievalRecord]:
    records = []
    for row in read_records(out_dir / RECORDS):
        try:
            records.append(RetrievalRecord(**row))
        except TypeError:
            continue
    return records


def summarise_retrieval(records: Sequence[RetrievalRecord]) -> list[dict[str, float | int | str]]:
    """Mean F1 and recall in percent per retriever and budget (order of first appearance)."""
    rows = []
    for method in dict.fromkeys(r.method for r in records):
        for budget in dict.fromkeys(r.budget for r in records if r.method == method):
            picked = [r for r in records if r.method == method and r.budget == budget]
            rows.append(
                {
                    "method": method,
                    "budget": budget,
                    "f1": 100 * statistics.fmean(r.f1 for r in picked),
                    "recall": 100 * statistics.fmean(r.recall for r in picked),
                    "questions": len(picked),
                }
            )
    return rows
