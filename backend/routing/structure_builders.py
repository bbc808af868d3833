"""Build structure trees from an ingested document, a QASPER paper, or bare retrieved passages.

Markdown and HTML headings (and PDF outlines that ingestion matched) are already in the
document's heading tree; this module renumbers it with short ids and nests QASPER-style
section names ("Method ::: Data ::: Cleaning") however they reached it. A PDF whose ingestion
found no headings is given heading cues from `pdf_headings` (outline, else layout), matched to
its paragraphs here. A document with neither stays one flat section, and says so.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from backend.eval.qasper import QasperPaper
from backend.ingest.document import Document
from backend.retrieval.search import Passage
from backend.routing.pdf_headings import HeadingCue
from backend.routing.structure_tree import QASPER_SEPARATOR, StructureTree, TreeBuilder

_SOURCE_PRODUCERS = {
    "markdown": "markdown headings",
    "html": "html headings",
    "pdf": "pdf outline (ingestion)",
}
FLAT_PRODUCER = "no headings found: one flat section"
PASSAGES_PRODUCER = "no structure: retrieved passages only"
QASPER_PRODUCER = "qasper section names"


def tree_from_document(
    doc: Document, cues: Sequence[HeadingCue] = (), cue_producer: str = ""
) -> StructureTree:
    """The document's heading tree with short ids; `cues` are used only when it has no headings."""
    if doc.tree.heading_count() == 0 and any(c.level > 0 for c in cues):
        return _tree_from_cues(doc, cues, cue_producer)
    has_headings = doc.tree.heading_count() > 0
    producer = _SOURCE_PRODUCERS.get(doc.source_type, f"{doc.source_type} headings") if has_headings else ""
    source = doc.tree
    if any(QASPER_SEPARATOR in n.text for n in source.nodes.values() if n.kind == "heading"):
        producer += f" + {QASPER_PRODUCER}"
    builder = TreeBuilder(doc.id, doc.title, producer or FLAT_PRODUCER)
    mapped = {source.root: builder.tree.root}
    stack = [(c, 1) for c in reversed(source.node(source.root).children)]
    while stack:
        node_id, depth = stack.pop()
        node = source.node(node_id)
        parent = mapped[node.parent or source.root]
        if node.kind == "content":
            mapped[node_id] = builder.content(node.text, node.paragraph_id or node_id, parent=parent)
            continue
        if QASPER_SEPARATOR in node.text:
            mapped[node_id] = builder.qasper_heading(node.text, base_level=depth)
        else:
            mapped[node_id] = builder.heading(node.text, depth)
        stack.extend((c, depth + 1) for c in reversed(node.children))
    return builder.build()


def _tree_from_cues(doc: Document, cues: Sequence[HeadingCue], producer: str) -> StructureTree:
    """Find the cues, in order, inside the paragraphs and cut there.

    Ingestion joins a heading line to the text around it when the page gives no paragraph break,
    so a cue may sit at the start or in the middle of a paragraph: the text before it stays with
    the previous section, the text after it opens the new one. Every piece keeps its paragraph
    as source, so reading it back cites the whole paragraph.
    """
    title_cue = next((c for c in cues if c.level == 0), None)
    title = title_cue.text if title_cue and doc.title == _stem(doc.name) else doc.title
    builder = TreeBuilder(doc.id, title, producer)
    pending = [c for c in cues if c.level > 0 or c is title_cue]
    position = 0
    for paragraph in doc.paragraphs:
        text = doc.span(paragraph.start, paragraph.end)
        cursor = 0
        while position < len(pending):
            cue = pending[position]
            found = _find_words(cue.text, text, cursor)
            if found is None:
                break
            start, end = found
            _add_piece(builder, text[cursor:start], paragraph.id)
            if cue.level > 0:
                builder.heading(cue.text, cue.level)
            cursor = end
            position += 1
        _add_piece(builder, text[cursor:], paragraph.id)
    return builder.build()


def _find_words(needle: str, text: str, start: int) -> tuple[int, int] | None:
    """The span of `needle`'s words in `text` from `start`, any spacing between them, whole words."""
    words = needle.split()
    if not words:
        return None
    pattern = r"(?<!\w)" + r"\s+".join(re.escape(w) for w in words) + r"(?!\w)"
    match = re.compile(pattern).search(text, start)
    return (match.start(), match.end()) if match else None


def _add_piece(builder: TreeBuilder, piece: str, paragraph_id: str) -> None:
    if piece.strip():
        builder.content(" ".join(piece.split()), paragraph_id)


def _stem(name: str) -> str:
    stem, dot, _ = name.rpartition(".")
    return stem if dot and stem else name


def tree_from_qasper(paper: QasperPaper) -> StructureTree:
    """A QASPER paper as sections nested by their " ::: " names; paragraph ids are `s<i>p<j>`."""
    builder = TreeBuilder(paper.paper_id, paper.title, QASPER_PRODUCER)
    if paper.abstract.strip():
        builder.heading("Abstract", 1)
        builder.content(paper.abstract, "abstract")
    for i, (name, paragraphs) in enumerate(paper.sections):
        builder.qasper_heading(name or "Untitled section")
        for j, paragraph in enumerate(paragraphs):
            if paragraph.strip():
                builder.content(paragraph, f"s{i}p{j}")
    return builder.build()


def tree_from_passages(doc_id: str, title: str, passages: Sequence[Passage]) -> StructureTree:
    """The no-structure ablation: a title and the retrieved passages as its only content."""
    builder = TreeBuilder(doc_id, title, PASSAGES_PRODUCER)
    for passage in passages:
        builder.content(passage.text, passage.chunk_id)
    return builder.build()
