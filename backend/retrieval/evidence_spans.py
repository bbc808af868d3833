"""Selected units as passages: document order, adjacent sentences of one paragraph joined.

The generator and the citations need places in documents, not tree nodes: consecutive selected
leaves with no paragraph break between them become one passage, and a unit cut at the budget
ends after its last kept word. A RAPTOR summary is a passage of its own whose text is the
summary and whose place is the range of the chunks it summarises.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from backend.ingest.document import Document
from backend.retrieval.search import Passage
from backend.retrieval.selection import IndexedTree, SelectedUnit, Selection

_WORD = re.compile(r"\S+")


def kept_end(text: str, start: int, end: int, words: int) -> int:
    """Character offset just after the first `words` words of text[start:end]."""
    last = end
    for count, match in enumerate(_WORD.finditer(text, start, end), start=1):
        last = match.end()
        if count == words:
            return last
    return last


def _pages(doc: Document, start: int, end: int) -> tuple[int, ...]:
    return tuple(
        sorted({s.page for s in doc.sentences if s.page is not None and s.start < end and s.end > start})
    )


def _passage(
    doc: Document, item: IndexedTree, units: list[SelectedUnit], text: str, start: int, end: int
) -> Passage:
    first, last = units[0].node, units[-1].node
    suffix = str(first) if first == last else f"{first}-{last}"
    return Passage(
        chunk_id=f"{item.tree.tree_id}:{suffix}",
        doc_id=doc.id,
        doc_name=doc.name,
        text=text,
        start=start,
        end=end,
        pages=_pages(doc, start, end),
        score=max(u.score for u in units),
    )


def selection_passages(
    forest: Sequence[IndexedTree], docs: Sequence[Document], selection: Selection
) -> list[Passage]:
    """One passage per run of adjacent leaves (or per summary), in document order."""
    passages: list[Passage] = []
    run: list[SelectedUnit] = []

    def close() -> None:
        if not run:
            return
        doc, item = docs[run[0].tree], forest[run[0].tree]
        start = item.tree.nodes[run[0].node].start_char
        last = item.tree.nodes[run[-1].node]
        end = last.end_char
        if run[-1].words < int(item.words[last.index]):
            end = kept_end(doc.text, last.start_char, last.end_char, run[-1].words)
        passages.append(_passage(doc, item, list(run), doc.text[start:end], start, end))
        run.clear()

    for unit in selection.in_document_order():
        item, doc = forest[unit.tree], docs[unit.tree]
        node = item.tree.nodes[unit.node]
        if unit.kind == "summary":
            close()
            words = (node.text or "").split()[: unit.words]
            passages.append(_passage(doc, item, [unit], " ".join(words), node.start_char, node.end_char))
            continue
        if run:
            previous = item.tree.nodes[run[-1].node]
            joined = (
                run[-1].tree == unit.tree
                and previous.index + 1 == node.index
                and run[-1].words == int(item.words[previous.index])
                and "\n\n" not in doc.text[previous.end_char : node.start_char]
            )
            if not joined:
                close()
        run.append(unit)
    close()
    return passages
