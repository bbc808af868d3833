"""DISRetrieval on a ~50,000-word document: tree build + node embedding time, and query latency.

The document is whole QASPER dev papers concatenated as one Markdown file. After the ordinary
ingestion (not counted: it embeds the sentences, which the tree then reuses), the merge-only
DISRetrieval tree is built with a fresh embedder cache: parse (paragraph trees + document tree),
embed every node that fits the encoder, store the nodes in Chroma and the tree on disk. The
baseline, in the same run, is a plain sentence-transformers encode of the same sentences. Then
questions are answered by tree retrieval alone (embed the question, score every node, dual
selection at the configured word budget) against a raw Chroma query on the node collection.
RAPTOR's and Bisection's builds are timed too, for the paper's ingestion comparison.

    OMP_NUM_THREADS=1 .venv/bin/python benchmarks/disretrieval_build.py [--words 50000] [--questions 200]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from backend.config import load_settings
from backend.eval.qasper import load_qasper
from backend.retrieval.embedder import Embedder
from backend.retrieval.tree_index import TreeIndex
from backend.retrieval.tree_retrieval import tree_retrieve
from backend.studio import Studio

DEFAULT_QASPER = (
    Path(__file__).resolve().parents[1].parent / "shared" / "data" / "qasper" / "qasper-dev-v0.3.json"
)


def percentiles(samples: list[float]) -> str:
    ordered = sorted(samples)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return f"p50 {1000 * statistics.median(ordered):7.1f} ms   p95 {1000 * p95:7.1f} ms   (n={len(ordered)})"


def build_corpus(qasper: Path, words: int, questions: int) -> tuple[str, list[str]]:
    """Whole papers until the word target, then their questions (topped up from later papers)."""
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
    parser.add_argument("--questions", type=int, default=200)
    parser.add_argument("--baselines", nargs="*", default=["bisection", "raptor"])
    args = parser.parse_args()

    text, questions = build_corpus(args.qasper, args.words, args.questions)
    with tempfile.TemporaryDirectory() as tmp:
        settings = load_settings().updated(data_dir=Path(tmp), chroma_host="")
        studio = Studio(settings)
        started = time.perf_counter()
        doc = studio.indexer.index_file(text.encode("utf-8"), "qasper-50k.md").document
        print(
            f"document: {doc.word_count} words, {len(doc.paragraphs)} paragraphs, {len(doc.sentences)} "
            f"sentences; ordinary ingestion (not counted) {time.perf_counter() - started:.1f} s"
        )
        sentences = [doc.sentence_text(s) for s in doc.sentences]
        fresh = Embedder(settings.embedding_model, settings.embedding_batch_size)
        started = time.perf_counter()
        fresh.encode(sentences)
        baseline_s = time.perf_counter() - started
        print(f"baseline: plain embedding of the {len(sentences)} sentences: {baseline_s:.1f} s")

        for method in ["disretrieval", *args.baselines]:
            embedder = Embedder(settings.embedding_model, settings.embedding_batch_size)
            item, report = TreeIndex(settings, embedder, studio.store).get(doc, method)
            stages = ", ".join(f"{stage} {seconds:.1f} s" for stage, seconds in report.seconds.items())
            ranked = int(item.ranked.sum())
            target = "   (target < 60 s)" if method == "disretrieval" else ""
            print(
                f"{method} merge-only build: {report.total_s:.1f} s ({stages}); {len(item.tree.nodes)} "
                f"nodes, {ranked} ranked; {report.total_s / baseline_s:.2f}x the baseline{target}"
            )

        index = TreeIndex(settings, studio.embedder, studio.store)
        index.get(doc, "disretrieval")  # loaded into memory once, as the app keeps it
        nodes = studio.store.collection("nodes")
        tree_s, raw_s = [], []
        for number, question in enumerate(questions):
            asked = f"{question} ({number})"  # never cached
            started = time.perf_counter()
            tree_retrieve(asked, [doc], "disretrieval", index, None, "merge-only")
            tree_s.append(time.perf_counter() - started)
            vector = studio.embedder.encode([asked + " raw"])[0]
            started = time.perf_counter()
            nodes.query(query_embeddings=[vector], n_results=10, include=["metadatas", "distances"])
            raw_s.append(time.perf_counter() - started)
        print(
            f"query (embed question, score nodes, dual selection): {percentiles(tree_s)}  (p95 target 200 ms)"
        )
        print(f"baseline raw Chroma query of the node collection (k=10):    {percentiles(raw_s)}")


if __name__ == "__main__":
    main()
