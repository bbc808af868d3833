"""Finds the EDUs a model wrote back in the chunk they came from, so units carry real offsets.

A model copies EDUs "word for word" only approximately: it changes spacing, quotes or case,
drops a word, or repeats a clause. Each EDU is looked for after the previous one, exactly, then
ignoring case and spacing, then by fuzzy matching. The units kept are cut at the EDUs' start
offsets, so together they always cover the chunk; text the model left out joins the unit before
it. Every such change is reported. An EDU that cannot be found, or comes back out of order, is
merged into its neighbour; when the EDUs found cover too little of the chunk the reply is
rejected rather than repaired.
"""

from __future__ import annotations

import difflib
import itertools
from dataclasses import dataclass

from backend.discourse.rst_tree import Unit
from backend.errors import MalformedOutputError

MIN_COVERAGE = 0.5
MIN_FUZZY_RATIO = 0.6
_QUOTES = str.maketrans({"“": '"', "”": '"', "‘": "'", "’": "'", "–": "-", "—": "-"})


@dataclass(frozen=True)
class Alignment:
    """Units over the chunk, and for each EDU number in the reply the unit that holds it."""

    units: list[Unit]
    unit_of: dict[int, int]
    repairs: list[str]


def _normalise(text: str) -> tuple[str, list[int]]:
    """Lower case, one space for any whitespace run, plain quotes; plus each character's source index."""
    chars: list[str] = []
    index: list[int] = []
    for i, ch in enumerate(text.translate(_QUOTES)):
        if ch.isspace():
            if chars and chars[-1] != " ":
                chars.append(" ")
                index.append(i)
            continue
        chars.append(ch.lower())
        index.append(i)
    return "".join(chars), index


def _locate(edu: str, chunk: str, norm: str, index: list[int], cursor: int) -> tuple[int, int, str] | None:
    """(start, end, how) of `edu` in `chunk` at or after `cursor`, or None."""
    found = chunk.find(edu, cursor)
    if found != -1:
        return found, found + len(edu), "exact"
    target, _ = _normalise(edu)
    target = target.strip()
    if not target:
        return None
    norm_cursor = next((k for k, i in enumerate(index) if i >= cursor), len(norm))
    found = norm.find(target, norm_cursor)
    if found != -1:
        return index[found], index[found + len(target) - 1] + 1, "spacing"
    window = norm[norm_cursor : norm_cursor + 2 * len(target) + 100]
    blocks = [
        b
        for b in difflib.SequenceMatcher(None, window, target, autojunk=False).get_matching_blocks()
        if b.size >= 3
    ]
    matched = sum(b.size for b in blocks)
    if not blocks or matched / len(target) < MIN_FUZZY_RATIO:
        return None
    first, last = blocks[0], blocks[-1]
    start, end = norm_cursor + first.a, norm_cursor + last.a + last.size
    return index[start], index[end - 1] + 1, f"fuzzy ({100 * matched / len(target):.0f}% of characters)"


def _content(text: str) -> int:
    return sum(1 for ch in text if not ch.isspace())


def align_edus(edus: list[tuple[int, str]], chunk: str) -> Alignment:
    """Units for the numbered EDUs `edus` (in reply order) over `chunk`.

    Raises:
        MalformedOutputError: no EDU was found, or those found cover under half of the chunk.
    """
    norm, index = _normalise(chunk)
    repairs: list[str] = []
    starts: list[int] = []
    kept: list[int] = []
    unit_of: dict[int, int] = {}
    covered = 0
    cursor = 0
    for number, text in edus:
        place = _locate(text, chunk, norm, index, cursor)
        if place is None or (starts and place[0] <= starts[-1]):
            why = "was not found in the chunk" if place is None else "repeats earlier text"
            repairs.append(f"EDU {number} {why}; merged into the unit before it.")
            unit_of[number] = max(len(starts) - 1, 0)
            continue
        start, end, how = place
        while start < end - 1 and chunk[start].isspace():
            start += 1
        if how != "exact":
            repairs.append(f"EDU {number} matched the chunk by {how}.")
        covered += _content(chunk[max(start, cursor) : end])
        starts.append(start)
        kept.append(number)
        unit_of[number] = len(starts) - 1
        cursor = max(end, start + 1)
    total = _content(chunk)
    if not starts:
        raise MalformedOutputError(
            "None of the EDUs in the reply could be found in the chunk.",
            "The model must copy each EDU from the chunk word for word.",
        )
    if total and covered / total < MIN_COVERAGE:
        raise MalformedOutputError(
            f"The EDUs found cover only {100 * covered / total:.0f}% of the chunk.",
            "The EDUs must together cover the whole chunk.",
        )
    first_text = len(chunk) - len(chunk.lstrip())
    bounds = [min(first_text, starts[0]), *starts[1:], len(chunk.rstrip())]
    units = []
    for a, b in itertools.pairwise(bounds):
        text = chunk[a:b].rstrip()
        units.append(Unit(text, a, a + len(text)))
    missing = total - covered
    if missing > 0:
        repairs.append(f"{missing} character(s) of the chunk were in no EDU and joined the unit before them.")
    return Alignment(units, unit_of, repairs)
