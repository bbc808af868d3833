"""Score sentence-level RST parsers on GUM dev with RST-Parseval, at paragraph and document level.

Prints, from one run: right- and left-branching baselines (majority train labels), gold spans
with majority labels, the trained parser's own spans with majority labels (the majority-class
label baseline on the same structure), the trained parser with only its transition scorer's
label heads (no labeller), the gold paragraphs-first oracle, and the trained parser; then parse
speed on a long document. Run from the repository root:
    python -m scripts.eval_rst_parser
"""

from __future__ import annotations

import argparse
import time
from collections import Counter
from pathlib import Path

from backend.discourse.gum import DEFAULT_GUM_DIR, GumDocument, load_split
from backend.discourse.gum_eval import (
    DocumentParser,
    branching_parser,
    gold_paragraphs_parser,
    score,
    trained_parser,
)
from backend.discourse.parser import DEFAULT_WEIGHTS, DocumentParse, SentenceRSTParser
from backend.discourse.rst_tree import RSTNode, RSTTree
from backend.discourse.training import cached_vectors
from backend.eval.rst_parseval import METRICS
from backend.retrieval.embedder import get_embedder


def majority_labels(docs: list[GumDocument]) -> tuple[str, str]:
    """The most frequent (nuclearity, relation) pair of the gold train nodes."""
    nodes = [n for d in docs for t in [*d.paragraph_trees, d.paragraphs_tree] for n in t.nodes]
    return Counter((n.nuclearity, n.relation) for n in nodes).most_common(1)[0][0]


def majority_relabelled(
    nuclearity: str, relation: str, spans: DocumentParser | None = None
) -> DocumentParser:
    """Spans from `spans` (gold when None), every node labelled with the majority pair."""

    def relabel(tree: RSTTree) -> RSTTree:
        nodes = [RSTNode(n.start, n.split, n.end, nuclearity, relation) for n in tree.nodes]
        return RSTTree(tree.units, nodes, "majority-labels")

    def predict(doc: GumDocument) -> DocumentParse:
        parse = spans(doc) if spans else DocumentParse(doc.paragraph_trees, doc.paragraphs_tree)
        return DocumentParse([relabel(t) for t in parse.paragraph_trees], relabel(parse.document_tree))

    return predict


def print_table(rows: dict[str, DocumentParser], docs: list[GumDocument], include_root: bool) -> None:
    head = " | ".join(f"{lvl[:3]} {m[:4]}" for lvl in ("paragraph", "document") for m in METRICS)
    print(f"\n| {'parser':<34} | {head} |\n|{'-' * 36}|" + "----------|" * 8)
    for name, predict in rows.items():
        scores = score(docs, predict, include_root)
        cells = " | ".join(f"{scores[lvl].f1(m):8.1f}" for lvl in ("paragraph", "document") for m in METRICS)
        print(f"| {name:<34} | {cells} |")


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
    args = parser.parse_args()

    train, dev = (load_split(name, args.gum_dir) for name in ("train", "dev"))
    print(f"GUM dev: {len(dev.documents)} documents ({len(dev.skipped)} skipped {dev.skipped}), "
          f"{sum(len(d.sentences) for d in dev.documents)} sentences")  # fmt: skip
    nuclearity, relation = majority_labels(train.documents)
    trained = SentenceRSTParser.load(args.weights)
    vectors = cached_vectors(dev.documents, args.cache_dir / "gum-dev-minilm", get_embedder().encode)
    predict = trained_parser(trained, vectors)
    heads_only = trained_parser(SentenceRSTParser(trained.model, trained.meta), vectors)
    rows = {
        f"right-branching ({nuclearity}, {relation})": branching_parser("right", nuclearity, relation),
        f"left-branching ({nuclearity}, {relation})": branching_parser("left", nuclearity, relation),
        "gold spans + majority labels": majority_relabelled(nuclearity, relation),
        "majority class on parser spans": majority_relabelled(nuclearity, relation, predict),
        "oracle: gold paragraphs-first": gold_paragraphs_parser(),
        "parser, transition-head labels": heads_only,
        trained.producer: predict,
    }
    print("\nRST-Parseval F1 (micro-averaged, internal nodes, root included):")
    print_table(rows, dev.documents, include_root=True)
    print("\nSame, root excluded:")
    print_table(rows, dev.documents, include_root=False)
    if args.speed_sentences:
        speed(trained, train.documents, args.speed_sentences)


if __name__ == "__main__":
    main()
