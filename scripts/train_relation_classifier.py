"""Train the inter-chunk relation classifier on GUM sibling-span pairs and write its weights.

Run from the repository root (well under a minute on 2 CPU cores once GUM sentence embeddings
are cached by the RST parser's training; fixed seed):
    python -m scripts.train_relation_classifier
Epochs are selected on a tenth of the train documents held out, never on GUM dev.
"""

from __future__ import annotations

import argparse
import random
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from backend.config import BUNDLED_EMBEDDER
from backend.discourse.gum import DEFAULT_GUM_DIR, load_split
from backend.discourse.relation_classifier import DEFAULT_WEIGHTS, PRODUCER, fit
from backend.discourse.rhetorical_graph import INTER_CHUNK
from backend.discourse.span_pairs import PairDocument, SpanPair, load_pairs, pair_matrices, sample_negatives
from backend.discourse.training import cached_vectors
from backend.retrieval.embedder import get_embedder


@dataclass
class Examples:
    pairs: list[SpanPair]
    embedding: np.ndarray
    cues: np.ndarray

    def labels(self, names: list[str]) -> np.ndarray:
        return np.array([names.index(p.label) for p in self.pairs])


def load_examples(split: str, gum_dir: Path, cache_dir: Path, seed: int = 13) -> dict[str, Examples]:
    """Pairs (positives + sampled negatives) of one GUM split; train is cut into fit / held-out parts."""
    gum_docs = load_split(split, gum_dir).documents
    vectors = cached_vectors(gum_docs, cache_dir / f"gum-{split}-minilm", get_embedder().encode)
    docs = [d for d in load_pairs(split, gum_dir) if d.doc_id in vectors]
    parts: dict[str, list[PairDocument]] = {split: docs}
    if split == "train":
        parts = {"fit": [d for i, d in enumerate(docs) if i % 10], "held-out": docs[::10]}
    out = {}
    for name, part in parts.items():
        pairs = [p for d in part for p in d.pairs] + sample_negatives(part, random.Random(seed))
        out[name] = Examples(pairs, *pair_matrices(part, pairs, vectors))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--gum-dir", type=Path, default=DEFAULT_GUM_DIR, help="folder with train/ and dev/")
    parser.add_argument("--cache-dir", type=Path, default=Path("data/cache"), help="sentence embedding cache")
    parser.add_argument("--out", type=Path, default=DEFAULT_WEIGHTS, help="where to write the weights")
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--epochs", type=int, default=25)
    parser.add_argument("--hidden", type=int, default=256)
    args = parser.parse_args()

    began = time.perf_counter()
    data = load_examples("train", args.gum_dir, args.cache_dir, args.seed)
    fit_part, held = data["fit"], data["held-out"]
    counts = Counter(p.label for p in fit_part.pairs)
    names = [label for label in INTER_CHUNK if label in counts]
    print(f"{len(fit_part.pairs)} fit pairs, {len(held.pairs)} held-out pairs; labels: {dict(counts)}")
    print(f"data ready in {time.perf_counter() - began:.1f} s")
    meta = {"producer": PRODUCER, "embedder": BUNDLED_EMBEDDER, "dim": 384, "seed": args.seed}
    held_labels = np.array([names.index(p.label) if p.label in names else -1 for p in held.pairs])
    keep = held_labels >= 0
    clf = fit(
        fit_part.embedding,
        fit_part.cues,
        fit_part.labels(names),
        names,
        (held.embedding[keep], held.cues[keep], held_labels[keep]),
        meta,
        hidden=args.hidden,
        epochs=args.epochs,
        seed=args.seed,
    )
    clf.save(args.out)
    print(f"total {time.perf_counter() - began:.0f} s; weights: {args.out}")


if __name__ == "__main__":
    main()
