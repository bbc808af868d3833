"""Rhetorical graph speed right after retrieval, on the real code path, against embedding from scratch.

A child process indexes the first QASPER dev papers into a temporary data folder; this process
then starts cold, as the app does after a restart: it retrieves the top-k chunks of the whole
library for the papers' questions (which seeds the embedder with the sentence vectors stored at
ingestion) and times the trained classifier's graph over them (`trained_graph`, what Disco-RAG
calls). The baseline, in the same run on the same chunks, is the same graph with a classifier
that embeds the chunks' sentences from scratch (what every graph cost before the seeding).

    .venv/bin/python benchmarks/relation_graph_speed.py [--papers 4] [--questions 10] [--k 5 10]
"""

from __future__ import annotations

import argparse
import itertools
import multiprocessing
import statistics
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from backend.config import Settings, load_settings
from backend.discourse.graph_builder import trained_graph
from backend.discourse.relation_classifier import RelationClassifier
from backend.eval.qasper import QasperPaper, load_qasper
from backend.retrieval.search import retrieve_chunks
from backend.studio import Studio

DEFAULT_QASPER = (
    Path(__file__).resolve().parents[1].parent / "shared" / "data" / "qasper" / "qasper-dev-v0.3.json"
)


def _percentiles(samples: Sequence[float]) -> str:
    ordered = sorted(samples)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return (
        f"p50 {1000 * statistics.median(ordered):7.1f} ms   p95 {1000 * p95:7.1f} ms   "
        f"max {1000 * ordered[-1]:7.1f} ms   (n={len(ordered)})"
    )


def _index(settings: Settings, papers: Sequence[QasperPaper]) -> None:
    """Runs in a child process, so this process's embedder cache holds nothing from ingestion."""
    studio = Studio(settings)
    for paper in papers:
        studio.indexer.index_file(paper.to_markdown().encode("utf-8"), f"{paper.paper_id}.md")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--qasper", type=Path, default=DEFAULT_QASPER)
    parser.add_argument("--papers", type=int, default=4)
    parser.add_argument("--questions", type=int, default=10)
    parser.add_argument("--k", type=int, nargs="+", default=[5, 10])
    args = parser.parse_args()

    papers = load_qasper(args.qasper)[: args.papers]
    questions = [q.question for q in itertools.chain.from_iterable(p.questions for p in papers)]
    questions = questions[: args.questions]
    with tempfile.TemporaryDirectory() as tmp:
        settings = load_settings().updated(data_dir=Path(tmp), chroma_host="")
        started = time.perf_counter()
        child = multiprocessing.get_context("spawn").Process(target=_index, args=(settings, papers))
        child.start()
        child.join()
        if child.exitcode != 0:
            raise SystemExit(f"indexing failed in the child process (exit code {child.exitcode})")
        print(f"indexed {len(papers)} papers in a child process: {time.perf_counter() - started:.1f} s")

        studio = Studio(settings)
        words = sum(studio.library.get(s.id).word_count for s in studio.library.summaries())
        print(f"library: {words} words; {len(questions)} questions; embedder {studio.embedder.name}")
        started = time.perf_counter()
        trained_graph(["Weights load on first use.", "This call is not timed."])
        print(f"classifier load and first call (not counted): {time.perf_counter() - started:.2f} s")

        model = studio.embedder._model  # the same model without the embedder's cache

        def from_scratch(texts: Sequence[str]) -> np.ndarray:
            batch = settings.embedding_batch_size
            return model.encode(list(texts), batch_size=batch, normalize_embeddings=True)

        uncached = RelationClassifier.load_default(embed=from_scratch)
        for k in args.k:
            retrieval, graph, baseline = [], [], []
            for question in questions:
                started = time.perf_counter()
                passages = retrieve_chunks(
                    question, embedder=studio.embedder, store=studio.store, library=studio.library, k=k
                )
                retrieval.append(time.perf_counter() - started)
                texts = [p.text for p in passages]
                started = time.perf_counter()
                trained_graph(texts)
                graph.append(time.perf_counter() - started)
                started = time.perf_counter()
                uncached.graph(texts)
                baseline.append(time.perf_counter() - started)
            print(f"\nk = {k} ({k * (k - 1)} ordered pairs)")
            print(f"  retrieval (question embedding, Chroma, stored vectors)  {_percentiles(retrieval)}")
            print(f"  graph right after retrieval                              {_percentiles(graph)}")
            print(f"  baseline: same graph, sentences embedded from scratch    {_percentiles(baseline)}")
            print(f"  baseline / graph at p50: {statistics.median(baseline) / statistics.median(graph):.0f}x")


if __name__ == "__main__":
    main()
