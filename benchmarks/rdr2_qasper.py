"""RDR2 routing vs top-k retrieval on QASPER dev papers that have nested sections.

Each sampled paper is indexed as Markdown (its " ::: " section names become nested headings in
the structure tree); each answerable question retrieves the top-k chunks of that paper, then
routes over the paper's tree. The passages chosen are scored against the gold evidence
paragraphs: token-level recall and F1 (QASPER normalisation, bag of tokens, best annotator),
the share of gold paragraphs fully contained in the selection, passage words, router calls,
routing latency and the share of router replies that were unusable. The routers: the offline
embedding router (what "auto" picks for the embedded model), its ablations, and the embedded
Gemma 3 270M prompted as router ("llm" mode), on a subset because each call takes seconds.

    OMP_NUM_THREADS=1 .venv/bin/python benchmarks/rdr2_qasper.py --results-dir results/rdr2

The evidence metric is this script's own (backend/eval had no evidence-F1 helper when it was
written). Papers are taken in id order after skipping `--skip` papers with nested sections,
which were used to sanity-check the offline router's thresholds.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from backend.config import Settings
from backend.eval.answer_f1 import normalise
from backend.eval.qasper import QasperPaper, load_qasper
from backend.retrieval.search import Passage, retrieve_chunks
from backend.routing.document_trees import structure_tree_for
from backend.routing.route import RouteOptions, route_documents
from backend.routing.router import LLMRouter, OfflineRouter, Router
from backend.routing.structure_tree import QASPER_SEPARATOR
from backend.studio import Studio

DEFAULT_QASPER = (
    Path(__file__).resolve().parents[1].parent / "shared" / "data" / "qasper" / "qasper-dev-v0.3.json"
)


@dataclass
class Tally:
    """Per-condition sums over questions."""

    name: str
    recall: list[float] = field(default_factory=list)
    f1: list[float] = field(default_factory=list)
    paragraph_recall: list[float] = field(default_factory=list)
    words: list[int] = field(default_factory=list)
    calls: list[int] = field(default_factory=list)
    latency_s: list[float] = field(default_factory=list)
    unusable: int = 0
    empty: int = 0

    def add(
        self, passages: Sequence[Passage], gold: Sequence[Sequence[str]], calls: int, latency: float
    ) -> dict:
        recall, f1, paragraphs = evidence_scores(passages, gold)
        self.recall.append(recall)
        self.f1.append(f1)
        self.paragraph_recall.append(paragraphs)
        self.words.append(sum(len(p.text.split()) for p in passages))
        self.calls.append(calls)
        self.latency_s.append(latency)
        self.empty += not passages
        return {
            "recall": recall,
            "f1": f1,
            "paragraph_recall": paragraphs,
            "words": self.words[-1],
            "calls": calls,
            "latency": latency,
        }

    def summary(self) -> dict:
        n = len(self.f1)
        calls = sum(self.calls)
        return {
            "condition": self.name,
            "questions": n,
            "evidence_recall": statistics.mean(self.recall) if n else 0.0,
            "evidence_f1": statistics.mean(self.f1) if n else 0.0,
            "gold_paragraphs_found": statistics.mean(self.paragraph_recall) if n else 0.0,
            "passage_words": statistics.mean(self.words) if n else 0.0,
            "router_calls": calls / n if n else 0.0,
            "latency_s": statistics.mean(self.latency_s) if n else 0.0,
            "unusable_reply_rate": self.unusable / calls if calls else 0.0,
            "empty_selection_rate": self.empty / n if n else 0.0,
        }


def evidence_scores(passages: Sequence[Passage], gold: Sequence[Sequence[str]]) -> tuple[float, float, float]:
    """Token recall, token F1 and whole-paragraph recall of the selection, each the best over annotators."""
    chosen = normalise(" ".join(p.text for p in passages))
    chosen_text = " ".join(chosen)
    best_recall = best_f1 = best_paragraphs = 0.0
    for evidence in gold:
        reference = normalise(" ".join(evidence))
        common = sum((Counter(chosen) & Counter(reference)).values())
        if reference and common:
            precision, recall = common / len(chosen), common / len(reference)
            best_recall = max(best_recall, recall)
            best_f1 = max(best_f1, 2 * precision * recall / (precision + recall))
        found = sum(" ".join(normalise(e)) in chosen_text for e in evidence)
        best_paragraphs = max(best_paragraphs, found / len(evidence))
    return best_recall, best_f1, best_paragraphs


def has_hierarchy(paper: QasperPaper) -> bool:
    return any(QASPER_SEPARATOR in name for name, _ in paper.sections)


def sample(
    papers: list[QasperPaper], skip: int, count: int, per_paper: int
) -> list[tuple[QasperPaper, list]]:
    nested = sorted((p for p in papers if has_hierarchy(p)), key=lambda p: p.paper_id)
    chosen = []
    for paper in nested[skip : skip + count]:
        answerable = [q for q in paper.questions if q.evidence][:per_paper]
        if answerable:
            chosen.append((paper, answerable))
    return chosen


def route(question: str, retrieved: list[Passage], studio: Studio, router: Router, options: RouteOptions):
    started = time.perf_counter()
    result = route_documents(
        question,
        retrieved,
        documents=studio.library.get,
        tree_for=lambda doc: structure_tree_for(doc, studio.library),
        router=router,
        options=options,
    )
    return result, time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--qasper", type=Path, default=DEFAULT_QASPER)
    parser.add_argument("--results-dir", type=Path, required=True)
    parser.add_argument("--papers", type=int, default=12)
    parser.add_argument("--per-paper", type=int, default=3, help="answerable questions per paper")
    parser.add_argument("--skip", type=int, default=8, help="nested-section papers reserved for tuning")
    parser.add_argument("--llm-questions", type=int, default=12, help="questions routed by the embedded LLM")
    parser.add_argument("--top-k", type=int, default=5)
    parser.add_argument("--max-expansions", type=int, default=3)
    args = parser.parse_args()

    chosen = sample(load_qasper(args.qasper), args.skip, args.papers, args.per_paper)
    questions = sum(len(qs) for _, qs in chosen)
    offline_conditions = {
        "rdr2 offline": RouteOptions(args.max_expansions),
        "rdr2 offline, no expand": RouteOptions(0, allow_expand=False),
        "rdr2 offline, no refuse": RouteOptions(args.max_expansions, allow_refuse=False),
        "rdr2 offline, no structure": RouteOptions(0, allow_expand=False, use_structure=False),
    }
    llm_options = RouteOptions(args.max_expansions)
    subset = ["top-k retrieved, LLM subset", "rdr2 offline, LLM subset", "rdr2 llm (embedded)"]
    tallies = {name: Tally(name) for name in ["top-k retrieved", *offline_conditions, *subset]}
    records = []
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(data_dir=Path(tmp), top_k=args.top_k, rdr2_max_expansions=args.max_expansions)
        studio = Studio(settings)
        offline = OfflineRouter(studio.embedder)
        llm_router = LLMRouter(studio.llm)
        print(
            f"QASPER dev: {len(chosen)} papers with nested sections, {questions} answerable questions "
            f"(skip {args.skip}), top-{args.top_k} chunks of {settings.chunk_tokens} tokens; "
            f"LLM router on the first {args.llm_questions} questions"
        )
        asked = 0
        for paper, paper_questions in chosen:
            report = studio.indexer.index_file(paper.to_markdown().encode("utf-8"), f"{paper.paper_id}.md")
            doc_id = report.doc_id
            for q in paper_questions:
                gold = q.evidence
                started = time.perf_counter()
                retrieved = retrieve_chunks(
                    q.question,
                    embedder=studio.embedder,
                    store=studio.store,
                    library=studio.library,
                    k=args.top_k,
                    doc_ids=[doc_id],
                )
                record = {"paper": paper.paper_id, "question": q.question}
                record["top-k retrieved"] = tallies["top-k retrieved"].add(
                    retrieved, gold, 0, time.perf_counter() - started
                )
                runs = [(name, offline, options) for name, options in offline_conditions.items()]
                if asked < args.llm_questions:
                    runs.append(("rdr2 offline, LLM subset", offline, offline_conditions["rdr2 offline"]))
                    runs.append(("rdr2 llm (embedded)", llm_router, llm_options))
                    tallies["top-k retrieved, LLM subset"].add(
                        retrieved, gold, 0, record["top-k retrieved"]["latency"]
                    )
                for name, router, options in runs:
                    result, latency = route(q.question, retrieved, studio, router, options)
                    tally = tallies[name]
                    record[name] = tally.add(result.passages, gold, result.calls, latency)
                    tally.unusable += result.unusable_replies
                    record[name]["trajectory"] = [r.to_dict() | {"tree": None} for r in result.routes]
                records.append(record)
                asked += 1
                print(f"  {asked}/{questions} questions", flush=True)
    summaries = [t.summary() for t in tallies.values() if t.f1]
    print_table(summaries)
    args.results_dir.mkdir(parents=True, exist_ok=True)
    out = args.results_dir / "rdr2_qasper.json"
    settings_used = {k: v for k, v in vars(args).items() if k != "results_dir"} | {"qasper": str(args.qasper)}
    out.write_text(
        json.dumps({"settings": settings_used, "summary": summaries, "questions": records}, indent=1),
        encoding="utf-8",
    )
    print(f"\nwrote {out}")


def print_table(summaries: list[dict]) -> None:
    header = (
        f"\n{'condition':28s} {'n':>3s} {'ev.recall':>9s} {'ev.F1':>6s} {'gold¶':>6s} {'words':>6s} "
        f"{'calls':>6s} {'lat s':>6s} {'unusable':>8s} {'empty':>6s}"
    )
    print(header)
    for s in summaries:
        print(
            f"{s['condition']:28s} {s['questions']:3d} {s['evidence_recall']:9.3f} {s['evidence_f1']:6.3f} "
            f"{s['gold_paragraphs_found']:6.3f} {s['passage_words']:6.0f} {s['router_calls']:6.2f} "
            f"{s['latency_s']:6.2f} {s['unusable_reply_rate']:8.1%} {s['empty_selection_rate']:6.1%}"
        )
    bases = {s["condition"]: s for s in summaries if s["condition"].startswith("top-k")}
    for s in summaries:
        if s["condition"].startswith("top-k"):
            continue
        on_subset = "LLM subset" in s["condition"] or "llm" in s["condition"]
        base = bases.get("top-k retrieved, LLM subset" if on_subset else "top-k retrieved")
        if base and base["evidence_f1"]:
            print(
                f"  {s['condition']}: F1 x{s['evidence_f1'] / base['evidence_f1']:.2f}, recall "
                f"x{s['evidence_recall'] / max(base['evidence_recall'], 1e-9):.2f}, words "
                f"x{s['passage_words'] / max(base['passage_words'], 1e-9):.2f} vs top-k"
            )


if __name__ == "__main__":
    main()
