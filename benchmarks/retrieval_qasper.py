"""DISRetrieval and its baselines on QASPER: token-level evidence F1 and recall at fixed word budgets.

Each paper is ingested as Markdown (section names become headings, which are not sentences), every
tree method builds its index (merge-only: no LLM calls), and every answerable question with text
evidence selects 200/300/400 words from its own paper with each retriever. The selected text, in
document order, is scored against each annotator's evidence paragraphs joined (FLOAT SELECTED
evidence dropped): the best-F1 annotator is kept, with that annotator's recall (see
backend/eval/evidence_f1.py). Selection and scoring are backend/eval/retrieval_run.py, shared with
`python -m scripts.evaluate retrieval` and the Evaluate page; this script adds build timings,
paired-bootstrap margins and the LLM-summary subset. Ingestion time per method is the build of its
index on top of the shared ingestion (segmentation + sentence embeddings, reused by every method);
each method gets its own embedder cache so no method is timed on another's embeddings.

    OMP_NUM_THREADS=1 .venv/bin/python benchmarks/retrieval_qasper.py --papers 40 --results-dir results/disr
    ... --summaries-subset 2 --tau 0     # also: node summaries by the configured LLM on 2 small papers

Rows "(paper ranking)" are dual selection with the paper's plain cosine ranking (context weight 1);
the plain rows use this project's context score (backend/retrieval/dual_selection.py).
"""

from __future__ import annotations

import argparse
import csv
import json
import statistics
import tempfile
import time
from collections import defaultdict
from dataclasses import replace
from pathlib import Path

from backend.config import Settings, load_settings
from backend.eval.bootstrap import paired_bootstrap
from backend.eval.qasper import QasperPaper, load_qasper
from backend.eval.retrieval_run import (
    BUILD_ORDER,
    RETRIEVERS,
    RetrievalRecord,
    Retriever,
    build_trees,
    chosen_papers,
    evidence_questions,
    score_paper,
    summarise_retrieval,
)
from backend.retrieval.embedder import Embedder
from backend.retrieval.node_text import Summariser
from backend.retrieval.summary_cache import SummaryCache
from backend.retrieval.tree_index import ENHANCED
from backend.studio import Studio

DEFAULT_QASPER = (
    Path(__file__).resolve().parents[1].parent / "shared" / "data" / "qasper" / "qasper-dev-v0.3.json"
)
PAPER_ANCHOR = "paper (QASPER test, SBERT, 200 words): DISRetrieval - flatten-chunk = +2.00 F1 / +4.70 recall"


def run(
    studio: Studio,
    settings: Settings,
    papers: list[QasperPaper],
    budgets: list[int],
    rows: list[Retriever],
    summariser: Summariser | None,
    label: str,
) -> tuple[list[RetrievalRecord], dict[str, list[float]], float]:
    """Per-question records for every row and budget, build seconds per method, shared ingestion seconds."""
    embedders = {m: Embedder(settings.embedding_model, settings.embedding_batch_size) for m in BUILD_ORDER}
    records: list[RetrievalRecord] = []
    build_s: dict[str, list[float]] = defaultdict(list)
    shared_s = 0.0
    wanted = {row.method for row in rows}
    for number, paper in enumerate(papers, start=1):
        started = time.perf_counter()
        doc = studio.indexer.index_file(paper.to_markdown().encode("utf-8"), f"{paper.paper_id}.md").document
        shared_s += time.perf_counter() - started
        items, seconds = build_trees(studio, doc, wanted, settings, summariser, embedders)
        for method, spent in seconds.items():
            build_s[method].append(spent)
        questions = evidence_questions(paper)
        vectors = studio.embedder.encode([q.question for q in questions])
        k = settings.disr_subtree_k
        records.extend(score_paper(items, paper.paper_id, questions, vectors, rows, budgets, k))
        print(f"  [{label}] {number}/{len(papers)} {paper.paper_id}: {len(questions)} questions", flush=True)
    return records, build_s, shared_s


def score_rows(records: list[RetrievalRecord], label: str) -> list[dict]:
    """Records in this script's JSON shape, tagged with the section they belong to."""
    return [
        {
            "set": label,
            "paper": r.paper_id,
            "question_id": r.question_id,
            "row": r.method,
            "budget": r.budget,
            "f1": r.f1,
            "recall": r.recall,
            "words": r.words,
        }
        for r in records
    ]


def summarise(records: list[RetrievalRecord]) -> dict[tuple[str, int], dict]:
    """Means in percent per (row, budget), from the shared summary of retrieval records."""
    return {
        (r["method"], r["budget"]): {"f1": r["f1"], "recall": r["recall"], "n": r["questions"]}
        for r in summarise_retrieval(records)
    }


def margins(scores: list[dict], budgets: list[int], row: str, baseline: str) -> list[dict]:
    """Mean difference row - baseline per budget, with a paired bootstrap interval."""
    found = []
    by_key = {(s["row"], s["budget"], s["question_id"]): s for s in scores}
    for budget in budgets:
        ids = [s["question_id"] for s in scores if s["row"] == row and s["budget"] == budget]
        entry = {"row": row, "baseline": baseline, "budget": budget}
        for metric in ("f1", "recall"):
            deltas = [
                100 * (by_key[(row, budget, i)][metric] - by_key[(baseline, budget, i)][metric]) for i in ids
            ]
            low, high = paired_bootstrap(deltas)
            entry[metric] = statistics.fmean(deltas)
            entry[f"{metric}_ci"] = [low, high]
        found.append(entry)
    return found


def print_table(title: str, table: dict[tuple[str, int], dict], budgets: list[int], build: dict) -> None:
    print(f"\n{title}")
    print(f"{'method':32s}" + "".join(f"{b:>9d} w F1 / rec" for b in budgets) + "   build s/paper")
    for row in dict.fromkeys(r for r, _ in table):
        base = RETRIEVERS.get(row.replace(" + summaries", ""))
        seconds = build.get(base.method if base else row)
        cells = "".join(
            f"   {table[(row, b)]['f1']:6.2f} / {table[(row, b)]['recall']:6.2f}" for b in budgets
        )
        timing = f"   {statistics.fmean(seconds):8.2f}" if seconds else ""
        print(f"{row:32s}{cells}{timing}")
    n = next(iter(table.values()))["n"]
    print(f"({n} questions)")


def write_results(folder: Path, name: str, payload: dict, tables: dict[str, dict]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.json").write_text(json.dumps(payload, indent=1), encoding="utf-8")
    with (folder / f"{name}.csv").open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["set", "method", "budget", "f1", "recall", "questions"])
        for name, table in tables.items():
            for (row, budget), cell in table.items():
                writer.writerow([name, row, budget, f"{cell['f1']:.2f}", f"{cell['recall']:.2f}", cell["n"]])


def paper_words(paper: QasperPaper) -> int:
    return sum(len(p.split()) for _, paragraphs in paper.sections for p in paragraphs)


def merge_only_section(
    studio: Studio, papers: list[QasperPaper], rows: list[Retriever], budgets: list[int]
) -> dict:
    records, build_s, shared_s = run(studio, studio.settings, papers, budgets, rows, None, "merge-only")
    scores = score_rows(records, "merge-only")
    table = summarise(records)
    print_table(f"Merge-only, {len(papers)} papers", table, budgets, build_s)
    print(f"shared ingestion (segment + embed sentences and chunks): {shared_s / len(papers):.2f} s/paper")
    found = []
    names = [row.name for row in rows]
    if "disretrieval" in names:
        bases = [b for b in ("flatten_chunk", "bisection") if b in names]
        found = [m for base in bases for m in margins(scores, budgets, "disretrieval", base)]
        print("\nDISRetrieval margins (points, mean over questions; 95% paired-bootstrap interval):")
        for m in found:
            print(
                f"  vs {m['baseline']:14s} @{m['budget']}: F1 {m['f1']:+.2f} "
                f"[{m['f1_ci'][0]:+.2f}, {m['f1_ci'][1]:+.2f}], recall {m['recall']:+.2f} "
                f"[{m['recall_ci'][0]:+.2f}, {m['recall_ci'][1]:+.2f}]"
            )
        print(f"  {PAPER_ANCHOR}")
    return {
        "table": table,
        "margins": found,
        "build_seconds": build_s,
        "shared_ingestion_seconds": shared_s,
        "scores": scores,
    }


def summaries_section(
    studio: Studio,
    papers: list[QasperPaper],
    rows: list[Retriever],
    budgets: list[int],
    tau: int,
    tokens: int,
) -> dict:
    """Merge-only and LLM-summary trees on the same (smallest) papers, with the configured model."""
    llm = studio.llm
    summariser = Summariser(llm, SummaryCache(studio.settings.data_dir, llm.label), tokens)
    settings = studio.settings.updated(disr_tau_words=tau)
    plain_rows = [r for r in rows if r.context_weight is None]
    base, _, _ = run(studio, settings, papers, budgets, plain_rows, None, "subset merge-only")
    summary_rows = [replace(r, name=f"{r.name} + summaries") for r in plain_rows if r.method in ENHANCED]
    summarised, build_s, _ = run(
        studio, settings, papers, budgets, summary_rows, summariser, "subset summaries"
    )
    table = summarise(base + summarised)
    scores = score_rows(base, "subset merge-only") + score_rows(summarised, "subset summaries")
    print_table(
        f"LLM summaries by {llm.label} at tau={tau} (replies <= {tokens} tokens) on the {len(papers)} "
        "smallest papers; merge-only rows on the same papers for comparison",
        table,
        budgets,
        build_s,
    )
    return {
        "table": table,
        "model": llm.label,
        "tau": tau,
        "papers": [p.paper_id for p in papers],
        "build_seconds": build_s,
        "scores": scores,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--qasper", type=Path, default=DEFAULT_QASPER)
    parser.add_argument("--papers", type=int, default=40, help="papers with answerable questions")
    parser.add_argument("--skip", type=int, default=0, help="papers to skip at the start of the file")
    parser.add_argument("--budgets", type=int, nargs="+", default=[200, 300, 400])
    parser.add_argument("--methods", nargs="+", default=list(RETRIEVERS), choices=list(RETRIEVERS))
    parser.add_argument("--summaries-subset", type=int, default=0, help="smallest N papers, LLM summaries")
    parser.add_argument("--summaries-only", action="store_true", help="skip the merge-only table")
    parser.add_argument("--tau", type=int, default=0, help="tau for the summaries subset (paper: 0)")
    parser.add_argument("--summary-tokens", type=int, default=160, help="reply limit per node summary")
    parser.add_argument("--results-dir", type=Path, default=Path("results"))
    args = parser.parse_args()

    papers = chosen_papers(load_qasper(args.qasper), args.skip, args.papers)
    rows = [RETRIEVERS[name] for name in args.methods]
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        studio = Studio(load_settings().updated(data_dir=Path(tmp), chroma_host=""))
        settings = studio.settings
        print(
            f"QASPER {args.qasper.name}: {len(papers)} papers (skip {args.skip}), embedder "
            f"{settings.embedding_model}, subtree k={settings.disr_subtree_k}, budgets {args.budgets} words. "
            "Scores: token F1/recall vs the best-F1 annotator's joined evidence (that annotator's recall)."
        )
        payload: dict = {
            "papers": [p.paper_id for p in papers],
            "settings": {
                "budgets": args.budgets,
                "k": settings.disr_subtree_k,
                "embedder": settings.embedding_model,
            },
        }
        tables = {}
        if not args.summaries_only:
            payload["merge_only"] = merge_only_section(studio, papers, rows, args.budgets)
            tables["merge-only"] = payload["merge_only"]["table"]
        if args.summaries_subset:
            subset = sorted(papers, key=paper_words)[: args.summaries_subset]
            payload["summaries"] = summaries_section(
                studio, subset, rows, args.budgets, args.tau, args.summary_tokens
            )
            tables["summaries subset"] = payload["summaries"]["table"]
    for section in ("merge_only", "summaries"):
        if section in payload:
            payload[section]["table"] = {f"{r}@{b}": c for (r, b), c in payload[section]["table"].items()}
    payload["seconds"] = time.perf_counter() - started
    name = "retrieval_qasper_summaries" if args.summaries_only else "retrieval_qasper"
    write_results(args.results_dir, name, payload, tables)
    print(f"\nwrote {args.results_dir / name}.json and .csv in {payload['seconds']:.0f} s")


if __name__ == "__main__":
    main()
