"""Parser state -> feature vector: frozen embeddings of the top of the stack and queue, plus cues.

Kept apart from the model so training (static oracle over gold trees) and greedy decoding build
exactly the same features from the same state.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np

MARKERS: tuple[str, ...] = (
    "as a result", "for example", "for instance", "in addition", "in fact", "in contrast",
    "on the other hand", "in other words", "in conclusion", "in summary", "in particular",
    "that is", "so that", "in order to", "however", "but", "and", "or", "so", "because", "since",
    "although", "though", "while", "whereas", "if", "unless", "when", "after", "before", "then",
    "thus", "therefore", "hence", "also", "moreover", "furthermore", "finally", "first", "second",
    "next", "later", "meanwhile", "indeed", "instead", "yet", "still", "similarly", "overall",
    "specifically", "especially", "this", "these", "it", "he", "she", "they", "we", "i", "you",
    "there", "the", "what", "why", "how", "yes", "no", "oh", "well", "to",
)  # fmt: skip
"""Leading words that often signal a relation; multi-word markers first so they win."""

_WORD = re.compile(r"[\w'’.]+")
SHAPE_CUES = 6
UNIT_CUES = len(MARKERS) + SHAPE_CUES
SCALAR_CUES = 20


def unit_cues(text: str) -> np.ndarray:
    """Leading discourse marker (one-hot) and surface shape of one unit's text."""
    cues = np.zeros(UNIT_CUES, np.float32)
    lowered = " ".join(_WORD.findall(text.lower()[:80]))
    for i, marker in enumerate(MARKERS):
        if lowered == marker or lowered.startswith(marker + " "):
            cues[i] = 1.0
            break
    stripped = text.strip()
    tail = stripped[-1:] if stripped else ""
    cues[len(MARKERS) :] = (
        tail == "?",
        tail == ":",
        tail not in ".?!:;\"'”’)",  # headings, list items, titles
        stripped[:1] in "\"“‘'-–•*(" or stripped[:1].isdigit(),
        math.log1p(len(stripped.split())) / 4.0,
        "?" in stripped[:-1] or "!" in stripped,
    )
    return cues


@dataclass
class Subtree:
    """A stack item: units start..end and its vector (mean of its two children's vectors)."""

    start: int
    end: int
    vector: np.ndarray


FEATURE_SLOTS = 9  # s0, s1, s2, q0, s1*s0, s0*q0, and the two units either side of s1|s0 and their product


def feature_size(dim: int) -> int:
    return FEATURE_SLOTS * dim + SCALAR_CUES + 4 * UNIT_CUES


def state_features(
    stack: list[Subtree],
    queue_head: int,
    vectors: np.ndarray,
    cues: np.ndarray,
    paragraph_start: np.ndarray,
    document_level: bool,
) -> np.ndarray:
    """Features of one parser state.

    Args:
        stack: subtrees, top last.
        queue_head: index of the next unit to shift (== number of units when the queue is empty).
        vectors: (n, dim) unit embeddings; cues: (n, UNIT_CUES) from `unit_cues`.
        paragraph_start: (n,) bool, True where a unit opens a paragraph.
        document_level: True when units are paragraphs rather than sentences.
    """
    n, dim = vectors.shape
    zero = np.zeros(dim, np.float32)
    s0, s1, s2 = (stack[-k] if len(stack) >= k else None for k in (1, 2, 3))
    v0, v1, v2 = (s.vector if s is not None else zero for s in (s0, s1, s2))
    q0 = vectors[queue_head] if queue_head < n else zero

    def cos(a: np.ndarray, b: np.ndarray) -> float:
        norm = float(np.linalg.norm(a) * np.linalg.norm(b))
        return float(a @ b) / norm if norm > 0 else 0.0

    def starts_par(i: int) -> float:
        return float(i < n and paragraph_start[i])

    scalars = np.array(
        [
            s0 is not None, s1 is not None, s2 is not None, queue_head < n,
            cos(v1, v0), cos(v0, q0), cos(v2, v1),
            math.log1p(s0.end - s0.start + 1) / 3 if s0 else 0.0,
            math.log1p(s1.end - s1.start + 1) / 3 if s1 else 0.0,
            len(stack) / n, (n - queue_head) / n,
            s0.start / n if s0 else 0.0, s0.end / n if s0 else 0.0,
            math.log1p(n) / 5, float(document_level),
            starts_par(s0.start) if s0 else 0.0,
            starts_par(s0.end + 1) if s0 else 0.0,
            starts_par(queue_head),
            starts_par(s1.start) if s1 else 0.0,
            float(queue_head == n),
        ],
        np.float32,
    )  # fmt: skip
    blank = np.zeros(UNIT_CUES, np.float32)
    unit = [
        cues[s0.start] if s0 else blank,
        cues[s0.end] if s0 else blank,
        cues[s1.end] if s1 else blank,
        cues[queue_head] if queue_head < n else blank,
    ]
    # The two units that meet at the s1|s0 boundary carry most of the relation signal.
    b1 = vectors[s1.end] if s1 else zero
    b0 = vectors[s0.start] if s0 else zero
    parts = [v0, v1, v2, q0, v1 * v0, v0 * q0, b1, b0, b1 * b0, scalars, *unit]
    return np.concatenate(parts).astype(np.float32)
