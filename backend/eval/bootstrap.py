"""Paired bootstrap intervals, so benchmarks say whether a margin over a baseline is more than noise."""

from __future__ import annotations

import random
import statistics
from collections.abc import Sequence


def paired_bootstrap(deltas: Sequence[float], rounds: int = 2000, seed: int = 0) -> tuple[float, float]:
    """95% interval of the mean of per-question differences, resampling questions."""
    rng = random.Random(seed)
    means = sorted(statistics.fmean(rng.choices(deltas, k=len(deltas))) for _ in range(rounds))
    return means[int(0.025 * rounds)], means[int(0.975 * rounds) - 1]
