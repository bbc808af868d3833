"""Extractive answers vs standard RAG with the configured generator, on QASPER dev questions.

Both methods answer from the same retrieval (top-k chunks of the question's own paper); the
score is QASPER's answer token F1 (lower-case, punctuation and articles removed, best over the
annotators' answers: extractive spans joined, else the free-form answer). Questions whose
answers are all unanswerable or yes/no are skipped: neither method is built to say "yes".

    .venv/bin/python benchmarks/extractive_vs_rag.py [--questions 50] [--max-tokens 100]
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

from backend.config import load_settings
from backend.eval.answer_f1 import answer_f1, reference_answer
from backend.eval.qasper import load_qasper
from backend.studio import Studio

DEFAULT_QASPER = (
    Path(__file__).resolve().parents[1].parent / "shared" / "data" / "qasper" / "qasper-dev-v0.3.json"
)


def gold_answers(qa: dict) -> list[str]:
    """References neither method is built for (unanswerable, yes/no) are left out."""
    bodies = [a["answer"] for a in qa.get("answers", [])]
    usable = [b for b in bodies if not b.get("unanswerable") and b.get("yes_no") is None]
    return [r for r in map(reference_answer, usable) if r.strip()]


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--qasper", type=Path, default=DEFAULT_QASPER)
    parser.add_argument("--questions", type=int, default=50)
    parser.add_argument("--max-tokens", type=int, default=100, help="generator reply limit")
    args = parser.parse_args()

    raw = json.loads(args.qasper.read_text(encoding="utf-8"))
    papers = {p.paper_id: p for p in load_qasper(args.qasper)}
    with tempfile.TemporaryDirectory() as tmp:
        studio = Studio(load_settings().updated(data_dir=Path(tmp), llm_max_tokens=args.max_tokens))
        scores: dict[str, list[float]] = {"extractive": [], "standard_rag": []}
        seconds: dict[str, list[float]] = {"extractive": [], "standard_rag": []}
        words: dict[str, list[int]] = {"extractive": [], "standard_rag": []}
        asked = 0
        for paper_id, paper in raw.items():
            qas = [(qa["question"], gold_answers(qa)) for qa in paper["qas"]]
            qas = [(q, g) for q, g in qas if g]
            if not qas:
                continue
            doc_id = studio.indexer.index_file(
                papers[paper_id].to_markdown().encode(), f"{paper_id}.md"
            ).doc_id
            for question, golds in qas[: args.questions - asked]:
                for method in scores:
                    began = time.perf_counter()
                    answer = studio.ask(method, question, [doc_id])
                    seconds[method].append(time.perf_counter() - began)
                    scores[method].append(answer_f1(answer.text, golds))
                    words[method].append(len(answer.text.split()))
                asked += 1
            print(f"{asked} questions", flush=True)
            if asked >= args.questions:
                break
    k = studio.settings.top_k
    print(f"\nQASPER dev, {asked} answerable non-yes/no questions, top-{k} chunks of the paper")
    print(f"generator for standard RAG: {studio.llm.label}, reply limit {args.max_tokens} tokens\n")
    print(f"| {'method':<14} | answer F1 | mean words | mean seconds |")
    print(f"|{'-' * 16}|-----------|------------|--------------|")
    for method in scores:
        print(
            f"| {method:<14} | {100 * statistics.mean(scores[method]):9.1f} | "
            f"{statistics.mean(words[method]):10.1f} | {statistics.mean(seconds[method]):12.2f} |"
        )


if __name__ == "__main__":
    main()
