"""Headings of a PDF for its structure tree: the outline when it has one, else layout cues.

Many PDFs (papers exported from LaTeX without hyperref, scanned-then-OCRed reports) carry no
outline, so ingestion finds no headings and routing would see one flat section. The fallback
reads what a person sees: lines set larger than the body text, and short lines numbered like
"2", "2.1" or "IV." that do not end a sentence. Numbering gives the level ("2.1" is level 2);
otherwise larger type ranks higher. The largest line on page one, when it stands alone, is the
title. Cues are returned in reading order for `structure_builders.tree_from_document`.
"""

from __future__ import annotations

import io
import math
import re
from collections import Counter
from dataclasses import dataclass
from typing import Literal

from pypdf import PdfReader

CueSource = Literal["outline", "font size", "numbering", "title"]
OUTLINE_PRODUCER = "pdf outline (pypdf)"
LAYOUT_PRODUCER = "pdf layout cues (font size, numbering)"

_NUMBERED = re.compile(r"^(\d{1,2}(?:\.\d{1,2}){0,3})\.?\s+(\S.*)$")
_ROMAN = re.compile(r"^([IVX]{1,5})\.\s+(\S.*)$")
_MAX_HEADING_WORDS = 14
_LARGER = 1.12  # a line this much larger than the body text reads as a heading
_MAX_OUTLINE_DEPTH = 6
_MAX_NUMBERED_SHARE = 0.4  # more numbered lines than this: a numbered list, not sections


@dataclass(frozen=True)
class HeadingCue:
    """A heading seen in the PDF; level 0 is the document title."""

    text: str
    level: int
    page: int | None
    source: CueSource


@dataclass(frozen=True)
class _Line:
    text: str
    size: float
    page: int


def heading_key(text: str) -> str:
    """Case- and punctuation-free form, so a cue matches the paragraph text ingestion made of it."""
    return " ".join(re.sub(r"[^\w]+", " ", text.casefold()).split())


def pdf_heading_cues(data: bytes) -> tuple[list[HeadingCue], str]:
    """Cues and their producer name; ([], "") when the PDF cannot be read or shows no headings."""
    try:
        reader = PdfReader(io.BytesIO(data), strict=False)
        if reader.is_encrypted:
            reader.decrypt("")
        outline = outline_cues(reader)
        if outline:
            return outline, OUTLINE_PRODUCER
        layout = layout_cues(_lines(reader))
    except Exception:  # a PDF ingestion accepted but pypdf cannot re-read costs only the structure
        return [], ""
    return (layout, LAYOUT_PRODUCER) if any(c.level > 0 for c in layout) else ([], "")


def outline_cues(reader: PdfReader) -> list[HeadingCue]:
    """Bookmarks in reading order with their nesting level; empty when absent or malformed."""
    cues: list[HeadingCue] = []

    def walk(items: list, level: int) -> None:
        for item in items:
            if isinstance(item, list):
                if level < _MAX_OUTLINE_DEPTH:
                    walk(item, level + 1)
                continue
            title = " ".join(str(getattr(item, "title", "") or "").split())
            if title:
                index = reader.get_destination_page_number(item)
                page = index + 1 if index is not None and index >= 0 else None
                cues.append(HeadingCue(title, level, page, "outline"))

    try:
        walk(reader.outline, 1)
    except Exception:  # a broken outline only costs the outline
        return []
    return cues


class _LineCollector:
    """Receives pypdf's text callbacks for one page and cuts them into lines at line breaks."""

    def __init__(self, page: int, lines: list[_Line]) -> None:
        self.page = page
        self.lines = lines
        self.parts: list[tuple[str, float]] = []

    def close(self) -> None:
        text = " ".join("".join(t for t, _ in self.parts).split())
        if text:
            weights: Counter[float] = Counter()
            for fragment, size in self.parts:
                weights[size] += len(fragment.strip())
            self.lines.append(_Line(text, weights.most_common(1)[0][0], self.page))
        self.parts.clear()

    def visit(self, text: str, cm: list[float], tm: list[float], _font: object, size: float) -> None:
        scale = abs(tm[3] * cm[3]) or 1.0
        effective = round(float(size) * scale * 2) / 2
        for i, piece in enumerate(text.split("\n")):
            if i:
                self.close()
            if piece:
                self.parts.append((piece, effective))


def _lines(reader: PdfReader) -> list[_Line]:
    """Text lines with the size most of their characters are set in."""
    lines: list[_Line] = []
    for number, page in enumerate(reader.pages, start=1):
        collector = _LineCollector(number, lines)
        page.extract_text(visitor_text=collector.visit)
        collector.close()
    return lines


def layout_cues(lines: list[_Line]) -> list[HeadingCue]:
    """Headings by numbering and by type size relative to the body text (the most used size)."""
    if not lines:
        return []
    chars: Counter[float] = Counter()
    for line in lines:
        chars[line.size] += len(line.text)
    body = chars.most_common(1)[0][0]
    numbered = [_numbering_level(line.text) for line in lines]
    use_numbers = 0 < sum(n is not None for n in numbered) <= _MAX_NUMBERED_SHARE * len(lines)
    title = _title_line(lines, body)
    title_size = lines[title].size if title is not None else None
    large = {line.size for line in lines if _is_large(line, body)}
    ranks = sorted(large - {title_size}, reverse=True)
    cues: list[HeadingCue] = []
    for index, (line, level) in enumerate(zip(lines, numbered, strict=True)):
        if index == title:
            cues.append(HeadingCue(line.text, 0, line.page, "title"))
        elif use_numbers and level is not None and line.size >= body * 0.95 and _heading_shaped(line.text):
            cues.append(HeadingCue(line.text, level, line.page, "numbering"))
        elif _is_large(line, body):
            level = 1 if use_numbers or line.size not in ranks else ranks.index(line.size) + 1
            cues.append(HeadingCue(line.text, level, line.page, "font size"))
    return cues


def _numbering_level(text: str) -> int | None:
    match = _NUMBERED.match(text)
    if match:
        return match.group(1).count(".") + 1
    return 1 if _ROMAN.match(text) else None


def _heading_shaped(text: str) -> bool:
    words = text.split()
    rest = words[1:]
    return (
        1 <= len(rest) <= _MAX_HEADING_WORDS
        and rest[0][:1].isupper()
        and any(len(w) >= 3 and w.isalpha() for w in rest)
        and not text.endswith((".", ",", ";"))
    )


def _is_large(line: _Line, body: float) -> bool:
    words = line.text.split()
    return (
        line.size >= body * _LARGER
        and 1 <= len(words) <= _MAX_HEADING_WORDS
        and any(c.isalpha() for c in line.text)
        and not line.text.endswith((",", ";"))
        and not math.isclose(line.size, body)
    )


def _title_line(lines: list[_Line], body: float) -> int | None:
    """The first page's largest line, if no other line in the document is set that large."""
    first_page = [i for i, line in enumerate(lines) if line.page == lines[0].page]
    biggest = max(first_page, key=lambda i: lines[i].size)
    size = lines[biggest].size
    alone = sum(1 for line in lines if line.size >= size) == 1
    return biggest if alone and size >= body * _LARGER else None
