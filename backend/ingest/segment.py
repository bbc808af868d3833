"""Sentence spans with character offsets, from Wikimedia's rule-based `sentencex` segmenter.

sentencex returns sentence strings, not offsets, and may trim or normalise whitespace, so each
sentence is located in the original text from where the previous one ended. Spans are laid end
to end over the text, so no character can be lost even if a sentence cannot be found verbatim.
Over-long "sentences" are first re-split with a plain punctuation rule (sentencex treats text
after an unbalanced quote or bracket as one quotation, e.g. '(2) Next ...' in papers), then cut
at word boundaries (run-on text with no punctuation), because a 500-word sentence would swamp a
chunk and any per-sentence model.
"""

from __future__ import annotations

import math
import re
from itertools import pairwise

from sentencex import segment

MAX_SENTENCE_WORDS = 120
_WORD = re.compile(r"\S+")
# A sentence end a plain rule trusts: terminal punctuation, closing quotes/brackets, then space
# and a capital, digit or opening quote/bracket.
_PLAIN_BOUNDARY = re.compile(r"""[.!?]["'”’)\]]*(?=\s+["'“‘(\[]?[A-Z0-9])""")

Span = tuple[int, int]


def sentence_spans(text: str, language: str = "en", max_words: int = MAX_SENTENCE_WORDS) -> list[Span]:
    """`[start, end)` spans of the sentences of `text`, each stripped of surrounding whitespace.

    Spans are ordered, non-overlapping and together cover every non-whitespace character.
    """
    if max_words < 1:
        raise ValueError(f"max_words must be at least 1, got {max_words}")
    spans: list[Span] = []
    for start, end in _raw_spans(text, language):
        if _word_count(text, start, end) <= max_words:
            spans.append((start, end))
            continue
        for piece_start, piece_end in _plain_spans(text, start, end):
            spans.extend(_split_long(text, piece_start, piece_end, max_words))
    return spans


def _raw_spans(text: str, language: str) -> list[Span]:
    ends: list[int] = []
    position = 0
    for sentence in segment(language, text):
        piece = sentence.strip()
        if not piece:
            continue
        found = text.find(piece, position)
        if found != -1 and not text[position:found].strip():
            position = found + len(piece)
        else:
            position = _advance_non_space(text, position, piece)
        ends.append(position)
    spans: list[Span] = []
    start = 0
    last_end = len(text.rstrip())
    for end in [*ends[:-1], last_end]:  # the last span always reaches the end: nothing is lost
        span = _strip(text, start, max(end, start))
        if span[0] < span[1]:
            spans.append(span)
        start = max(end, start)
    return spans


def _advance_non_space(text: str, position: int, piece: str) -> int:
    """Where `piece` ends if its non-space characters are matched one for one from `position`."""
    remaining = sum(1 for c in piece if not c.isspace())
    for index in range(position, len(text)):
        if not text[index].isspace():
            remaining -= 1
            if remaining == 0:
                return index + 1
    return len(text)


def _strip(text: str, start: int, end: int) -> Span:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def _word_count(text: str, start: int, end: int) -> int:
    return sum(1 for _ in _WORD.finditer(text, start, end))


def _plain_spans(text: str, start: int, end: int) -> list[Span]:
    cuts = [m.end() for m in _PLAIN_BOUNDARY.finditer(text, start, end)]
    bounds = [start, *cuts, end]
    spans = (_strip(text, a, b) for a, b in pairwise(bounds))
    return [span for span in spans if span[0] < span[1]]


def _split_long(text: str, start: int, end: int, max_words: int) -> list[Span]:
    words = [m.span() for m in _WORD.finditer(text, start, end)]
    if len(words) <= max_words:
        return [(start, end)]
    pieces = math.ceil(len(words) / max_words)
    cuts = [len(words) * k // pieces for k in range(pieces + 1)]  # even sizes: no 3-word tail
    return [(words[a][0], words[b - 1][1]) for a, b in pairwise(cuts)]
