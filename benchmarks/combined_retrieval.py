"""Evidence of the combined pipeline against each method alone, on QASPER dev, without generation.

Every condition runs the real retrieval stages of its method and stops before the answer:
top-k chunks (what standard RAG and Disco-RAG read), DISRetrieval's dual selection, RDR2's
routing of the top-k chunks, and the combined pipeline's evidence (dual selection, routed, capped
at k). Each paper is indexed alone and asked only its own questions; the chosen text is scored
against the gold evidence (token F1 and recall, best annotator, backend/eval/evidence_f1.py).
Structure producers follow the settings (`auto` with the embedded model: trained producers,
merge-only trees, the offline router).

    OMP_NUM_THREADS=1 .venv/bin/python benchmarks/combined_retrieval.py --papers 40
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from backend.config import load_settings
from backend.eval.bootstrap import paired_bootstrap
from backend.eval.evidence_f1 import evidence_score
from backend.eval.qasper import load_qasper
from backend.eval.retrieval_run import chosen_papers, evidence_questions
from backend.pipelines.combined import combined_evidence
from backend.pipelines.disretrieval import summariser_for
from backend.pipelines.rdr2 import route_passages
from backend.pipelines.registry import RunContext
from backend.retrieval.search import Passage, retrieve_chunks
from backend.retrieval.tree_index import TreeIndex
from backend.retrieval.tree_retrieval import tree_retrieve
from backend.routing.route import RouteOptions
from backend.studio import Studio

DEFAULT_QASPER = (
    Path(__file__).resolve().parents[1].parent / "shared" / "data" / "qasper" / "qasper-dev-v0.3.json"
)


def top_k(question: str, ctx: RunContext) -> list[Passage]:
    return retrieve_chunks(
        question,
        embedder=ctx.embedder,
        store=ctx.store,
        library=ctx.library,
        k=ctx.settings.top_k,
        doc_ids=ctx.doc_ids,
    )


def disretrieval(question: str, ctx: RunContext) -> list[Passage]:
    summariser, reason = summariser_for("disretrieval", ctx)
    docs = [ctx.library.get(doc_id) for doc_id in ctx.selected_ids()]
    index = TreeIndex(ctx.settings, ctx.embedder, ctx.store)
    return tree_retrieve(question, docs, "disretrieval", index, summariser, reason).passages


def rdr2(question: str, ctx: RunContext) -> list[Passage]:
    options = RouteOptions(max_expansions=ctx.settings.rdr2_max_expansions)
    return route_passages(question, top_k(question, ctx), ctx, options).passages


def combined(question: str, ctx: RunContext) -> list[Passage]:
    return combined_evidence(question, ctx).passages


CONDITIONS: dict[str, Callable[[str, RunContext], list[Passage]]] = {
    "top-k chunks (standard_rag, disco_rag)": top_k,
    "disretrieval": disretrieval,
    "rdr2": rdr2,
    "combined": combined,
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--qasper", type=Path, default=DEFAULT_QASPER)
    parser.add_argument("--papers", type=int, default=40)
    parser.add_argument("--skip", type=int, default=0)
    args = parser.parse_args()

    papers = chosen_papers(load_qasper(args.qasper), args.skip, args.papers)
    scores: dict[str, list[tuple[float, float, int]]] = {name: [] for name in CONDITIONS}
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        settings = load_settings().updated(data_dir=Path(tmp), chroma_host="")
        studio = Studio(settings)
        for number, paper in enumerate(papers, start=1):
            doc = studio.indexer.index_file(paper.to_markdown().encode(), f"{paper.paper_id}.md").document
            ctx = RunContext(settings, studio.llm, studio.embedder, studio.store, studio.library, [doc.id])
            for question in evidence_questions(paper):
                for name, condition in CONDITIONS.items():
                    passages = condition(question.question, ctx)
                    text = "\n".join(p.text for p in passages)
                    score = evidence_score(text, question.evidence)
                    scores[name].append((score.f1, score.recall, len(text.split())))
            print(f"\r{number}/{len(papers)} papers", end="", flush=True)
    print(
        f"\n{len(papers)} papers, {len(scores['combined'])} questions, {time.perf_counter() - started:.0f} s"
    )
    print("\n| condition | evidence F1 | evidence recall | words |\n|---|---|---|---|")
    for name, rows in scores.items():
        f1, recall, words = (statistics.fmean(column) for column in zip(*rows, strict=True))
        print(f"| {name} | {100 * f1:.2f} | {100 * recall:.2f} | {words:.0f} |")
    print("\ncombined minus each, mean per question [95% paired bootstrap]:\n")
    print("| against | F1 | recall |\n|---|---|---|")
    for name, rows in scores.items():
        if name == "combined":
            continue
        cells = []
        for column in (0, 1):
            deltas = [100 * (c[column] - o[column]) for c, o in zip(scores["combined"], rows, strict=True)]
            low, high = paired_bootstrap(deltas)
            cells.append(f"{statistics.fmean(deltas):+.2f} [{low:+.2f}, {high:+.2f}]")
        print(f"| {name} | {cells[0]} | {cells[1]} |")


if __name__ == "__main__":
    main()
