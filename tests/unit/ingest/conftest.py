"""Shared fixtures for ingest tests; PDFs are built at test time, never committed.

The PDF factory writes a Helvetica text layer per page and an optional outline.

pypdf's writer cannot lay out text, so each page gets a hand-written content stream
(`BT ... Tj ... ET`), which is what any PDF producer emits for simple text.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Sequence

import pytest
from pypdf import PdfWriter
from pypdf.generic import DecodedStreamObject, DictionaryObject, NameObject

_LINE_HEIGHT = 14


def _escape(line: str) -> str:
    return line.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")


def build_pdf(
    pages: list[list[str]],
    outline: Sequence[tuple[str, int, int]] = (),  # (title, 0-based page, level 1..)
    password: str | None = None,
    title: str | None = None,
) -> bytes:
    """Each page is a list of lines; an empty string leaves a blank line; an empty page has no text."""
    writer = PdfWriter()
    font = writer._add_object(
        DictionaryObject(
            {
                NameObject("/Type"): NameObject("/Font"),
                NameObject("/Subtype"): NameObject("/Type1"),
                NameObject("/BaseFont"): NameObject("/Helvetica"),
                NameObject("/Encoding"): NameObject("/WinAnsiEncoding"),
            }
        )
    )
    for lines in pages:
        page = writer.add_blank_page(width=612, height=792)
        if not lines:
            continue
        ops = [f"BT /F1 11 Tf {_LINE_HEIGHT} TL 72 740 Td"]
        ops += [f"({_escape(line)}) Tj T*" for line in lines]
        ops.append("ET")
        stream = DecodedStreamObject()
        stream.set_data("\n".join(ops).encode("cp1252"))
        page[NameObject("/Contents")] = writer._add_object(stream)
        page[NameObject("/Resources")] = DictionaryObject(
            {NameObject("/Font"): DictionaryObject({NameObject("/F1"): font})}
        )
    parents: dict[int, object] = {}
    for heading, page_index, level in outline:
        parents[level] = writer.add_outline_item(heading, page_index, parent=parents.get(level - 1))
    if title:
        writer.add_metadata({"/Title": title})
    if password is not None:
        writer.encrypt(user_password=password, owner_password="owner", algorithm="RC4-128")
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


@pytest.fixture
def make_pdf() -> Callable[..., bytes]:
    return build_pdf


@pytest.fixture
def count_words() -> Callable[[Sequence[str]], list[int]]:
    """A whitespace token counter standing in for the MiniLM tokenizer."""
    return lambda texts: [len(t.split()) for t in texts]
