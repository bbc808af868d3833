"""Helpers for routing tests: hand-built trees, documents from loader blocks, and test PDFs.

PDFs are written at test time with hand-made content streams (pypdf cannot lay out text), one
`(text, font size)` line at a time, so layout cues can be tested with known sizes.
"""

from __future__ import annotations

import hashlib
import io
from collections.abc import Sequence

import numpy as np
from pypdf import PdfWriter
from pypdf.generic import DecodedStreamObject, DictionaryObject, NameObject

from backend.ingest.build import build_document
from backend.ingest.document import Document
from backend.ingest.loaded import Block, LoadedDocument
from backend.routing.structure_tree import StructureTree, TreeBuilder


def count_words(texts: Sequence[str]) -> list[int]:
    return [len(t.split()) for t in texts]


def doc_from_blocks(
    blocks: list[Block], title: str | None = None, source_type: str = "markdown", name: str = "doc.md"
) -> Document:
    loaded = LoadedDocument(title, blocks, None, source_type)
    return build_document(loaded, doc_id="d", name=name, size_bytes=10, count_tokens_many=count_words)


def hostile_report() -> Document:
    """Two sections whose headings and text carry markup, for viewers that must escape it."""
    return doc_from_blocks(
        [
            Block("heading", "Costs <b>bold</b>", 2),
            Block("paragraph", "Prices rose. <script>alert(1)</script>"),
            Block("heading", "Winter", 2),
            Block("paragraph", "Range drops in the cold."),
        ],
        title="Report",
    )


def hand_tree() -> StructureTree:
    """A tree with nested content, which ingestion never builds but the lighting rules cover.

    0 Title
      1 Intro (heading)
        2 p: intro text
        3 p: lead-in           (content with content children)
          4 li: first item
          5 li: second item
        6 p: intro closing
        7 Background (sub-heading)
          8 p: background text
      9 Methods (heading)
        10 p: methods text
      11 Empty heading (no content of its own)
        12 Deep (sub-heading)
          13 p: deep text
    """
    b = TreeBuilder("doc", "Title", "hand-built")
    b.heading("Intro", 1)
    b.content("intro text", "a")
    lead = b.content("lead-in", "b")
    b.content("first item", "c", parent=lead)
    b.content("second item", "d", parent=lead)
    b.content("intro closing", "e")
    b.heading("Background", 2)
    b.content("background text", "f")
    b.heading("Methods", 1)
    b.content("methods text", "g")
    b.heading("Empty heading", 1)
    b.heading("Deep", 2)
    b.content("deep text", "h")
    return b.build()


def build_sized_pdf(
    pages: list[list[tuple[str, float]]], outline: Sequence[tuple[str, int, int]] = ()
) -> bytes:
    """Each page is a list of (line, font size); outline items are (title, 0-based page, level)."""
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
        y = 740.0
        ops = []
        for text, size in lines:
            escaped = text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
            ops.append(f"BT /F1 {size} Tf 72 {y} Td ({escaped}) Tj ET")
            y -= size + 6
        stream = DecodedStreamObject()
        stream.set_data("\n".join(ops).encode("cp1252"))
        page[NameObject("/Contents")] = writer._add_object(stream)
        page[NameObject("/Resources")] = DictionaryObject(
            {NameObject("/Font"): DictionaryObject({NameObject("/F1"): font})}
        )
    parents: dict[int, object] = {}
    for heading, page_index, level in outline:
        parents[level] = writer.add_outline_item(heading, page_index, parent=parents.get(level - 1))
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


class KeywordEmbedder:
    """A stand-in for MiniLM in unit tests: a text's vector counts a fixed keyword list.

    Not a model: it makes "similar" mean "shares keywords", so the offline router's decision
    rules can be checked with known scores. The real MiniLM runs in the integration tests.
    """

    name = "keyword-test-embedder"

    def __init__(self, keywords: Sequence[str]) -> None:
        self.keywords = [k.lower() for k in keywords]

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        rows = []
        for text in texts:
            words = text.lower().split()
            vector = np.array([sum(w.strip(".,?") == k for w in words) for k in self.keywords], float)
            # a small text-specific part in 16 extra dimensions: no zero vectors, and two texts
            # without keywords are not similar to each other
            seed = int.from_bytes(hashlib.sha256(text.encode()).digest()[:4], "little")
            vector = np.append(vector, 0.1 * np.random.default_rng(seed).standard_normal(16))
            rows.append(vector / np.linalg.norm(vector))
        return np.stack(rows)
