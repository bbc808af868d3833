"""Reads `[n]` citation markers out of a model's answer and checks them against the passages.

Model output is untrusted: markers that name no passage are dropped and reported, never
shown as if they pointed somewhere.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from backend.generation.answer import Citation
from backend.retrieval.search import Passage

_MARKER = re.compile(r"\[(\d{1,3}(?:\s*[,;]\s*\d{1,3})*)\]")


def cited_numbers(text: str) -> list[int]:
    """Numbers in `[n]`, `[n, m]` or `[n; m]` markers, in order of first appearance."""
    seen: list[int] = []
    for match in _MARKER.finditer(text):
        for part in re.split(r"[,;]", match.group(1)):
            number = int(part)
            if number not in seen:
                seen.append(number)
    return seen


def resolve_citations(text: str, passages: Sequence[Passage]) -> tuple[list[Citation], list[str]]:
    """Citations for markers that name a passage (1-based), plus a warning per invalid marker."""
    citations, warnings = [], []
    for number in cited_numbers(text):
        if 1 <= number <= len(passages):
            citations.append(Citation(number, passages[number - 1]))
        else:
            warnings.append(f"The answer cites [{number}], but only {len(passages)} passages were given.")
    return sorted(citations, key=lambda c: c.number), warnings
