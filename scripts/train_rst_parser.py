"""Train the sentence-level RST parser on GUM train, select on GUM dev, write the weights.

Trains the transition scorer, then the REDUCE-time labeller, and writes both into one file.
Run from the repository root (3-5 minutes on 2 CPU cores once embeddings are cached, fixed seed):
    python -m scripts.train_rst_parser
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import torch

from backend.config import BUNDLED_EMBEDDER
from backend.discourse.gum import DEFAULT_GUM_DIR, load_split
from backend.discourse.parser import DEFAULT_WEIGHTS
from backend.discourse.training import cached_vectors, train
from backend.retrieval.embedder import get_embedder


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--gum-dir", type=Path, default=DEFAULT_GUM_DIR, help="folder with train/ and dev/")
    parser.add_argument("--cache-dir", type=Path, default=Path("data/cache"), help="sentence embedding cache")
    parser.add_argument("--out", type=Path, default=DEFAULT_WEIGHTS, help="where to write the weights")
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--epochs", type=int, default=15)
    parser.add_argument("--hidden", type=int, default=256)
    parser.add_argument("--dropout", type=float, default=0.5)
    parser.add_argument("--threads", type=int, default=1, help="torch threads (1: fastest on a busy CPU)")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)

    began = time.perf_counter()
    splits = {name: load_split(name, args.gum_dir) for name in ("train", "dev")}
    for name, split in splits.items():
        print(f"{name}: {len(split.documents)} documents, {len(split.skipped)} skipped {split.skipped}")
    embedder = get_embedder()
    vectors = {
        name: cached_vectors(split.documents, args.cache_dir / f"gum-{name}-minilm", embedder.encode)
        for name, split in splits.items()
    }
    print(f"data and embeddings ready in {time.perf_counter() - began:.1f} s")
    report = train(
        splits["train"].documents,
        splits["dev"].documents,
        vectors["train"],
        vectors["dev"],
        args.out,
        BUNDLED_EMBEDDER,
        seed=args.seed,
        epochs=args.epochs,
        hidden=args.hidden,
        dropout=args.dropout,
    )
    print(
        f"best epochs: transitions {report['best_epoch']}, labeller {report['label_epoch']} "
        f"(dev mean F1 {report['dev_mean_f1']:.2f}); "
        f"training {report['seconds']:.0f} s, total {time.perf_counter() - began:.0f} s; weights: {args.out}"
    )


if __name__ == "__main__":
    main()
