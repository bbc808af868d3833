"""Evaluate answering methods on QASPER questions; rerun the same command to resume.

    python -m scripts.evaluate --methods standard_rag,extractive --papers 5 --per-paper 3 \\
        --out results/qa-sample [--dataset ../shared/data/qasper/qasper-dev-v0.3.json]

Writes records.jsonl (one line per paper, question and method) and summary.csv (means per
method) under --out, and prints the summary. Uses the studio's settings (env / studio.toml).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from backend.config import load_settings
from backend.eval.qa_run import run_qa_eval, summarise
from backend.studio import Studio

DEFAULT_DATASET = Path(__file__).resolve().parents[2] / "shared" / "data" / "qasper" / "qasper-dev-v0.3.json"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--methods", default="standard_rag,extractive")
    parser.add_argument("--papers", type=int, default=5)
    parser.add_argument("--per-paper", type=int, default=3)
    parser.add_argument("--dataset", type=Path, default=DEFAULT_DATASET)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()

    def progress(_stage: str, done: int, total: int) -> None:
        print(f"\r{done}/{total} answers", end="", flush=True)

    studio = Studio(load_settings())
    methods = [m.strip() for m in args.methods.split(",") if m.strip()]
    records = run_qa_eval(
        studio,
        args.dataset,
        methods,
        args.out,
        n_papers=args.papers,
        per_paper=args.per_paper,
        progress=progress,
    )
    print()
    for row in summarise(records):
        print("  ".join(f"{k}={v}" for k, v in row.items()))


if __name__ == "__main__":
    main()
