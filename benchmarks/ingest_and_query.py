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
from backend.errors import StudioError
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


def build_corpus(qasper: Path, words: int, questions: int) -> tuple[str, list[str]]:
    """Whole papers until the word target; their questions first, topped up from later papers."""
    parts, asked, count = [], [], 0
    for paper in load_qasper(qasper):
        if count < words:
            text = paper.to_markdown().replace("\n# ", "\n## ", 1)
            parts.append(text)
            count += len(text.split())
        elif len(asked) >= questions:
            break
        asked.extend(q.question for q in paper.questions)
    return "# QASPER dev papers, concatenated\n\n" + "\n".join(parts), asked[:questions]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--qasper", type=Path, default=DEFAULT_QASPER)
    parser.add_argument("--words", type=int, default=50_000)
    parser.add_argument("--questions", type=int, default=50)
    parser.add_argument("--rag-questions", type=int, default=50)
    args = parser.parse_args()

    text, questions = build_corpus(args.qasper, args.words, args.questions)
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

        asked = questions
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

        rag, failed, prompt_tokens, completion_tokens, retries = [], [], [], [], 0
        for question in asked[: args.rag_questions]:
            started = time.perf_counter()
            try:
                answer = studio.ask("standard_rag", question)
            except StudioError as error:
                failed.append(str(error))
                continue
            rag.append(time.perf_counter() - started)
            generate = answer.costs[-1]
            prompt_tokens.append(generate.prompt_tokens)
            completion_tokens.append(generate.completion_tokens)
            retries += generate.retries
        if rag:
            print(
                f"standard RAG end to end on {studio.llm.label}: {_percentiles(rag)}; "
                f"retrieval share of p50 = {statistics.median(retrieval) / statistics.median(rag):.1%}"
            )
            print(
                f"  prompt tokens median {statistics.median(prompt_tokens):.0f}, completion tokens median "
                f"{statistics.median(completion_tokens):.0f} (max {max(completion_tokens)}), "
                f"retries {retries}, failed {len(failed)}" + (f": {failed[0]}" if failed else "")
            )


if __name__ == "__main__":
    main()
