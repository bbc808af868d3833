"""Score sentence-level RST parsers on GUM dev with RST-Parseval, at paragraph and document level.

Prints, from one run: right- and left-branching baselines (majority train labels), gold spans
with majority labels, the trained parser's own spans with majority labels (the majority-class
label baseline on the same structure), the trained parser with only its transition scorer's
label heads (no labeller), the gold paragraphs-first oracle, and the trained parser; then parse
speed on a long document. The rows and the scoring are backend/eval/rst_run.py, shared with
`python -m scripts.evaluate rst` and the Evaluate page. `--llm` adds the LLM chunk parser's rows
(the model Disco-RAG would use under the studio's settings; docs/rst_parser.md). Run from the
repository root:
    python -m scripts.eval_rst_parser [--llm] [--limit N]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from backend.config import load_settings
from backend.discourse.gum import DEFAULT_GUM_DIR, GumDocument
from backend.discourse.parser import DEFAULT_WEIGHTS, SentenceRSTParser
from backend.eval.rst_llm import ONLY_FALLBACKS, LLMRows, choice_note, structure_choice
from backend.eval.rst_parseval import METRICS
from backend.eval.rst_run import (
    LEVELS,
    LLM_PARSERS,
    RstRecord,
    llm_paragraph_counts,
    llm_rows,
    load_inputs,
    score_document,
    score_llm_document,
    summarise_rst,
)
from backend.retrieval.embedder import get_embedder


def print_table(summary: list[dict], include_root: bool) -> None:
    """One row per parser label; a level the row is not scored at shows as '-'."""
    width = max(34, *(len(r["label"]) for r in summary))
    head = " | ".join(f"{lvl[:3]} {m[:4]}" for lvl in LEVELS for m in METRICS)
    print(f"\n| {'parser':<{width}} | {head} |\n|{'-' * (width + 2)}|" + "----------|" * 8)
    root = "included" if include_root else "excluded"
    for label in dict.fromkeys(r["label"] for r in summary):
        cells_of = {r["level"]: r for r in summary if r["label"] == label and r["root"] == root}
        cells = " | ".join(
            f"{cells_of[lvl][m]:8.1f}" if lvl in cells_of else f"{'-':>8}" for lvl in LEVELS for m in METRICS
        )
        print(f"| {label:<{width}} | {cells} |")


def print_llm_report(records: list[RstRecord], rows: LLMRows) -> None:
    """How many paragraphs the LLM parsed and how many fell back (and why): the LLM rows' notes."""
    counts = llm_paragraph_counts(records)
    print(
        f"\n{rows.parser.key}: {sum(counts.values())} multi-sentence paragraphs, "
        f"{counts['llm_parsed']} parsed by the LLM, {counts['llm_fallback']} fell back to the trained parser."
    )
    for key, note in LLM_PARSERS.items():
        print(f"  {key}: {note}")
    for reason, n in rows.reasons.most_common():
        print(f"  fallback x{n}: {reason}")
    if not counts["llm_parsed"]:
        print(ONLY_FALLBACKS)


def speed(parser: SentenceRSTParser, docs: list[GumDocument], target: int) -> None:
    """Sentences/s on one long document built from `docs` (texts not yet embedded in this process)."""
    paragraphs: list[list[str]] = []
    for doc in docs:
        paragraphs += doc.paragraphs()
        if sum(map(len, paragraphs)) >= target:
            break
    n = sum(map(len, paragraphs))
    began = time.perf_counter()
    vectors = get_embedder().encode([s for p in paragraphs for s in p])
    embedded = time.perf_counter()
    parser.parse_document(paragraphs)  # embeddings now cached: parsing only
    parsed = time.perf_counter()
    print(
        f"\nspeed on a {n}-sentence, {len(paragraphs)}-paragraph document ({vectors.shape[1]}-d vectors): "
        f"embedding {embedded - began:.1f} s, parsing {parsed - embedded:.2f} s; "
        f"{n / (parsed - began):.0f} sentences/s with embeddings, {n / (parsed - embedded):.0f} without"
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--gum-dir", type=Path, default=DEFAULT_GUM_DIR, help="folder with train/ and dev/")
    parser.add_argument("--cache-dir", type=Path, default=Path("data/cache"), help="sentence embedding cache")
    parser.add_argument("--weights", type=Path, default=DEFAULT_WEIGHTS, help="trained parser weights")
    parser.add_argument("--speed-sentences", type=int, default=2500, help="0 skips the speed test")
    parser.add_argument("--limit", type=int, default=None, help="first N dev documents (default: all)")
    parser.add_argument("--llm", action="store_true", help="add the configured LLM chunk parser's rows")
    args = parser.parse_args()

    inputs = load_inputs(args.gum_dir, args.cache_dir, args.weights, args.limit)
    dev = inputs.dev
    print(f"GUM dev: {len(dev.documents)} documents ({len(dev.skipped)} skipped {dev.skipped}), "
          f"{sum(len(d.sentences) for d in dev.documents)} sentences")  # fmt: skip
    if args.limit:
        print(f"scoring the first {len(inputs.docs)} documents")
    records = [r for doc in inputs.docs for row in inputs.rows for r in score_document(doc, row)]
    rows: LLMRows | None = None
    if args.llm:
        choice = structure_choice(load_settings())
        print(choice_note(choice))
        rows = llm_rows(inputs, choice)
        for i, doc in enumerate(inputs.docs, start=1):
            records += score_llm_document(doc, rows)
            print(f"\rLLM parser: {i}/{len(inputs.docs)} documents", end="", flush=True)
    summary = summarise_rst(records)
    print("\nRST-Parseval F1 (micro-averaged, internal nodes, root included):")
    print_table(summary, include_root=True)
    print("\nSame, root excluded:")
    print_table(summary, include_root=False)
    if rows is not None:
        print_llm_report(records, rows)
    if args.speed_sentences:
        speed(inputs.trained, inputs.train.documents, args.speed_sentences)


if __name__ == "__main__":
    main()
