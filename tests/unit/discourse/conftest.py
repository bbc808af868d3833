"""Shared fixtures: a fast deterministic stand-in embedder and the committed parser."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from backend.discourse.parser import SentenceRSTParser

GUM_DIR = Path(__file__).resolve().parents[3] / ".." / "shared" / "data" / "gum"


def fake_embed(texts: Sequence[str]) -> np.ndarray:
    """Unit vectors seeded by each text's hash: same text, same vector; no model load."""
    out = np.empty((len(texts), 384), np.float32)
    for i, text in enumerate(texts):
        seed = int.from_bytes(hashlib.sha1(text.encode()).digest()[:4], "little")
        v = np.random.default_rng(seed).standard_normal(384)
        out[i] = v / np.linalg.norm(v)
    return out


@pytest.fixture(scope="session")
def parser() -> SentenceRSTParser:
    return SentenceRSTParser.load_default(embed=fake_embed)


@pytest.fixture(scope="session")
def gum_dir() -> Path:
    if not (GUM_DIR / "dev" / "rst").is_dir():
        pytest.skip(f"GUM data not found at {GUM_DIR}")
    return GUM_DIR
