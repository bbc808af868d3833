"""Evaluate answering methods, retrievers and RST parsers; rerun the same command to resume.

    python -m scripts.evaluate qa --methods standard_rag,extractive --papers 5 --per-paper 3 --out results/qa
    python -m scripts.evaluate retrieval --methods disretrieval,flatten_chunk --budgets 200,300,400 \\
        --papers 5 --out results/retrieval
    python -m scripts.evaluate rst --limit 5 [--llm] --out results/rst
    python -m scripts.evaluate asqa --dataset ASQA.json --methods standard_rag --questions 20 \\
        --out results/asqa

Without a kind (`python -m scripts.evaluate --methods ... --out DIR`) it runs `qa`, as before.
Each run writes run.json, records.jsonl, summary.csv, summary.json and charts.html (the Evaluate
page's plots, offline) under --out and prints the summary (docs/evaluate.md). Uses the studio's
settings (env / studio.toml).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from backend.config import load_settings
from backend.discourse.gum import DEFAULT_GUM_DIR
from backend.discourse.parser import DEFAULT_WEIGHTS
from backend.errors import StudioError
from backend.eval.asqa_run import run_asqa_eval, summarise_asqa
from backend.eval.qa_run import run_qa_eval, summarise
from backend.eval.retrieval_run import (
    DEFAULT_BUDGETS,
    DEFAULT_RETRIEVERS,
    run_retrieval_eval,
    structure_summariser,
    summarise_retrieval,
)
from backend.eval.rst_llm import ONLY_FALLBACKS, choice_note, structure_choice
from backend.eval.rst_run import PARSERS, llm_paragraph_counts, run_rst_eval, summarise_rst
from backend.studio import Studio
from components.eval_charts import CHARTS_HTML, charts_html, run_figures

QASPER = Path(__file__).resolve().parents[2] / "shared" / "data" / "qasper" / "qasper-dev-v0.3.json"
KINDS = ("qa", "retrieval", "rst", "asqa")


def _names(text: str) -> list[str]:
    return [part.strip() for part in text.split(",") if part.strip()]


def _ints(text: str) -> list[int]:
    try:
        return [int(part) for part in _names(text)]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected whole numbers separated by commas, got {text!r}"
        ) from None


def _progress(stage: str, done: int, total: int) -> None:
    print(f"\r{stage}: {done}/{total}" if total else f"\r{stage}", end="", flush=True)


def _print(rows: Sequence[dict]) -> None:
    print()
    for row in rows:
        print("  ".join(f"{k}={v:.2f}" if isinstance(v, float) else f"{k}={v}" for k, v in row.items()))


def write_charts(kind: str, rows: Sequence[dict], out: Path) -> Path | None:
    """The Evaluate page's plots for this run as one offline HTML file; None when nothing was scored."""
    if not rows:
        return None
    path = out / CHARTS_HTML
    html = charts_html(run_figures(kind, rows, out.name), f"{kind} run {out.name}")
    path.write_text(html, encoding="utf-8")
    return path


def qa(args: argparse.Namespace) -> list[dict]:
    studio = Studio(load_settings())
    records = run_qa_eval(
        studio,
        args.dataset,
        _names(args.methods),
        args.out,
        n_papers=args.papers,
        per_paper=args.per_paper,
        progress=_progress,
    )
    return summarise(records)


def retrieval(args: argparse.Namespace) -> list[dict]:
    studio = Studio(load_settings())
    summariser = None
    if args.summaries:
        summariser, reason = structure_summariser(studio)
        print(reason)
        if summariser is None:
            raise SystemExit("--summaries needs a model that writes summaries; none is available.")
    records = run_retrieval_eval(
        studio,
        args.dataset,
        args.out,
        methods=_names(args.methods),
        budgets=args.budgets,
        n_papers=args.papers,
        skip=args.skip,
        summariser=summariser,
        progress=_progress,
    )
    return summarise_retrieval(records)


def rst(args: argparse.Namespace) -> list[dict]:
    choice = structure_choice(load_settings()) if args.llm else None
    if choice is not None:
        print(choice_note(choice))
    records = run_rst_eval(
        args.out,
        gum_dir=args.gum_dir,
        cache_dir=args.cache_dir,
        weights=args.weights,
        parsers=_names(args.parsers),
        llm=choice,
        limit=args.limit,
        progress=_progress,
    )
    if choice is not None:
        counts = llm_paragraph_counts(records)
        print(f"\nLLM rows: {counts['llm_parsed']} paragraphs parsed by the LLM, {counts['llm_fallback']} "
              "fell back (scored as the trained parser's trees)")  # fmt: skip
        if not counts["llm_parsed"]:
            print(ONLY_FALLBACKS)
    return summarise_rst(records)


def asqa(args: argparse.Namespace) -> list[dict]:
    studio = Studio(load_settings())
    records = run_asqa_eval(
        studio,
        args.dataset,
        _names(args.methods),
        args.out,
        n_questions=args.questions,
        split=args.split,
        allow_weak_model=args.allow_weak_model,
        progress=_progress,
    )
    return summarise_asqa(records)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    kinds = parser.add_subparsers(dest="kind", required=True)

    def kind(
        name: str, run: Callable[[argparse.Namespace], list[dict]], text: str
    ) -> argparse.ArgumentParser:
        sub = kinds.add_parser(name, help=text, description=text)
        sub.add_argument("--out", type=Path, required=True, help="run folder; an existing one resumes")
        sub.set_defaults(run=run)
        return sub

    sub = kind("qa", qa, "QASPER answers: answer F1, evidence recall/F1 of the passages read, cost.")
    sub.add_argument("--methods", default="standard_rag,extractive", help="comma-separated method names")
    sub.add_argument("--papers", type=int, default=5)
    sub.add_argument("--per-paper", type=int, default=3)
    sub.add_argument("--dataset", type=Path, default=QASPER)

    sub = kind("retrieval", retrieval, "QASPER retrieval: evidence token F1/recall at word budgets.")
    sub.add_argument("--methods", default=",".join(DEFAULT_RETRIEVERS), help="comma-separated retrievers")
    sub.add_argument("--budgets", type=_ints, default=list(DEFAULT_BUDGETS), help="e.g. 200,300,400")
    sub.add_argument("--papers", type=int, default=5, help="papers with questions that have text evidence")
    sub.add_argument("--skip", type=int, default=0, help="papers to skip at the start of the file")
    sub.add_argument("--summaries", action="store_true", help="LLM node summaries (default: merge-only)")
    sub.add_argument("--dataset", type=Path, default=QASPER)

    sub = kind("rst", rst, "GUM dev RST parsing: RST-Parseval span/nuclearity/relation/full.")
    sub.add_argument(
        "--parsers", default=",".join(PARSERS), help=f"comma-separated, from: {', '.join(PARSERS)}"
    )
    sub.add_argument("--limit", type=int, default=None, help="first N dev documents (default: all)")
    sub.add_argument("--gum-dir", type=Path, default=DEFAULT_GUM_DIR, help="folder with train/ and dev/")
    sub.add_argument("--cache-dir", type=Path, default=Path("data/cache"), help="sentence embedding cache")
    sub.add_argument("--weights", type=Path, default=DEFAULT_WEIGHTS, help="trained parser weights")
    sub.add_argument("--llm", action="store_true", help="add the configured LLM chunk parser's rows")

    sub = kind("asqa", asqa, "ASQA-format long answers: ROUGE-L and short-answer exact match (STR-EM).")
    sub.add_argument("--dataset", type=Path, required=True, help="ASQA.json or a file in its format")
    sub.add_argument("--split", default="dev")
    sub.add_argument("--methods", default="standard_rag", help="comma-separated method names")
    sub.add_argument("--questions", type=int, default=5)
    sub.add_argument("--allow-weak-model", action="store_true", help="run on a model the probe rejects")
    return parser


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    """Arguments of one run; without a kind first, those of a `qa` run (the invocation before kinds)."""
    argv = list(argv)
    if not argv or argv[0] not in (*KINDS, "-h", "--help"):
        argv.insert(0, "qa")
    return build_parser().parse_args(argv)


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    try:
        rows = args.run(args)
    except StudioError as error:
        print(f"\n{error}", file=sys.stderr)
        raise SystemExit(2) from None
    _print(rows)
    charts = write_charts(args.kind, rows, args.out)
    print(f"wrote {args.out}/summary.csv and summary.json" + (f" and {charts.name}" if charts else ""))


if __name__ == "__main__":
    main()
