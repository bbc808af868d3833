"""Score the relation classifier on GUM dev pairs against a majority and a cue-phrase-only baseline.

Run from the repository root (the cue-only baseline is trained here, in seconds, on the same
train pairs and held-out split as the model):
    python -m scripts.eval_relation_classifier
"""

from __future__ import annotations

import argparse
import time
from collections import Counter
from pathlib import Path

import numpy as np

from backend.discourse.gum import DEFAULT_GUM_DIR
from backend.discourse.relation_classifier import DEFAULT_WEIGHTS, RelationClassifier, fit, macro_f1
from scripts.train_relation_classifier import load_examples


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--gum-dir", type=Path, default=DEFAULT_GUM_DIR, help="folder with train/ and dev/")
    parser.add_argument("--cache-dir", type=Path, default=Path("data/cache"), help="sentence embedding cache")
    parser.add_argument("--weights", type=Path, default=DEFAULT_WEIGHTS)
    args = parser.parse_args()

    model = RelationClassifier.load(args.weights)
    names = model.labels
    train = load_examples("train", args.gum_dir, args.cache_dir, model.meta["seed"])
    dev = load_examples("dev", args.gum_dir, args.cache_dir, model.meta["seed"])["dev"]
    fit_part, held = train["fit"], train["held-out"]
    gold = np.array([names.index(p.label) if p.label in names else -1 for p in dev.pairs])
    print(f"GUM dev: {len(dev.pairs)} directed pairs, {Counter(p.label for p in dev.pairs).most_common()}")

    majority = np.full_like(gold, Counter(fit_part.labels(names).tolist()).most_common(1)[0][0])
    cue_only = fit(
        fit_part.embedding,
        fit_part.cues,
        fit_part.labels(names),
        names,
        (held.embedding, held.cues, held.labels(names)),
        model.meta,
        groups=("cues",),
        hidden=0,
        epochs=15,
    )
    began = time.perf_counter()
    trained = model.scores(dev.embedding, dev.cues).argmax(1)
    seconds = time.perf_counter() - began
    rows = [
        (f"majority ({names[majority[0]]})", majority),
        ("cue phrases only (logistic regression)", cue_only.scores(dev.embedding, dev.cues).argmax(1)),
        (model.producer, trained),
    ]
    print(f"\n| {'classifier':<40} | accuracy | macro-F1 |\n|{'-' * 42}|----------|----------|")
    for name, predicted in rows:
        accuracy = 100 * float(np.mean(predicted == gold))
        print(f"| {name:<40} | {accuracy:8.1f} | {100 * macro_f1(gold, predicted):8.1f} |")
    print(f"\nscoring {len(gold)} dev pairs from features: {seconds * 1000:.0f} ms")


if __name__ == "__main__":
    main()
