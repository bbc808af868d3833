"""Ingestion and query benchmark on a ~50,000-word document built from QASPER dev papers.

Prints words, sentences, chunks, seconds per stage and peak memory for ingestion, with a raw
sentence-transformers encode of the same texts as the baseline for the embedding stage; then
p50/p95 latency of retrieval alone and of standard RAG on the configured model (embedded by
default), with a raw Chroma query as the baseline for retrieval.

    .venv/bin/python benchmarks/ingest_and_query.py [--words 50000] [--questions 50] [--rag-questions 50]
"""

from __future__ import annotations

import argparse
import resource
import statistics
import tempfile
import time
from pathlib import Path

from backend.config import load_settings
from backend.eval.qasper import load_qasper
from backend.retrieval.search import retrieve_chunks
from backend.studio import Studio

DEFAULT_QASPER = (
    Path(__file__).resolve().parents[1].parent / "shared" / "data" / "qasper" / "qasper-dev-v0.3.json"
)


def _percentiles(samples: list[float]) -> str:
    ordered = sorted(samples)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return f"p50 {1000 * statistics.median(ordered):8.1f} ms   p95 {1000 * p95:8.1f} ms   (n={len(ordered)})"


def build_corpus(qasper: Path, words: int) -> tuple[str, list[str]]:
    """Concatenate whole papers until the word target; return the Markdown and their questions."""
    parts, questions, count = [], [], 0
    for paper in load_qasper(qasper):
        text = paper.to_markdown().replace("\n# ", "\n## ", 1)
        parts.append(text)
        questions.extend(q.question for q in paper.questions)
        count += len(text.split())
        if count >= words:
            break
    return "# QASPER dev papers, concatenated\n\n" + "\n".join(parts), questions


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--qasper", type=Path, default=DEFAULT_QASPER)
    parser.add_argument("--words", type=int, default=50_000)
    parser.add_argument("--questions", type=int, default=50)
    parser.add_argument("--rag-questions", type=int, default=50)
    args = parser.parse_args()

    text, questions = build_corpus(args.qasper, args.words)
    with tempfile.TemporaryDirectory() as tmp:
        settings = load_settings().updated(data_dir=Path(tmp), chroma_host="")
        started = time.perf_counter()
        studio = Studio(settings)
        load_s = time.perf_counter() - started
        report = studio.indexer.index_file(text.encode("utf-8"), "qasper-50k.md")
        doc = report.document
        peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        total = sum(report.seconds.values())
        print(f"embedder load (not counted): {load_s:.1f} s")
        print(
            f"document: {doc.word_count} words, {len(doc.paragraphs)} paragraphs, "
            f"{len(doc.sentences)} sentences, {len(doc.chunks)} chunks"
        )
        for stage, seconds in report.seconds.items():
            print(f"  {stage:8s} {seconds:7.2f} s")
        print(f"  {'total':8s} {total:7.2f} s   (target < 60 s)   peak RSS {peak_mb:.0f} MB")

        texts = [doc.chunk_text(c) for c in doc.chunks] + [doc.sentence_text(s) for s in doc.sentences]
        fresh = type(studio.embedder)(settings.embedding_model, settings.embedding_batch_size)
        started = time.perf_counter()
        fresh._model.encode(texts, batch_size=settings.embedding_batch_size, normalize_embeddings=True)
        raw_s = time.perf_counter() - started
        print(
            f"baseline raw sentence-transformers encode of the same {len(texts)} texts: {raw_s:.2f} s; "
            f"embed stage / baseline = {report.seconds['embed'] / raw_s:.2f}"
        )

        asked = questions[: args.questions]
        fresh_queries = [f"{q} ({i})" for i, q in enumerate(asked)]
        retrieval, raw = [], []
        for question in fresh_queries:
            started = time.perf_counter()
            retrieve_chunks(
                question,
                embedder=studio.embedder,
                store=studio.store,
                library=studio.library,
                k=settings.top_k,
            )
            retrieval.append(time.perf_counter() - started)
            vector = studio.embedder.encode([question + " raw"])[0]
            started = time.perf_counter()
            studio.store.query(vector, settings.top_k)
            raw.append(time.perf_counter() - started)
        print(
            f"retrieval (embed question + Chroma + library), uncached questions: {_percentiles(retrieval)}"
            "   (target p95 < 300 ms)"
        )
        print(f"baseline raw Chroma query alone:                                {_percentiles(raw)}")

        rag = []
        for question in asked[: args.rag_questions]:
            answer = studio.ask("standard_rag", question)
            rag.append(answer.total_latency_s)
        if rag:
            print(
                f"standard RAG on {studio.llm.label}: {_percentiles(rag)}; "
                f"retrieval share of p50 = {statistics.median(retrieval) / statistics.median(rag):.1%}"
            )


if __name__ == "__main__":
    main()
