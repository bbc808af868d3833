"""The units retrieval trees stand on: a document's sentences, or short chunks of whole sentences.

Word chunks follow the DISRetrieval paper's flatten-chunk baseline (at most 100 words, sentence
boundaries kept) and never cross a paragraph, so a chunk is never half one paragraph and half
the next; a single sentence longer than the limit is a chunk of its own.
"""

from __future__ import annotations

from dataclasses import dataclass

from backend.errors import BadDocumentError
from backend.ingest.document import Document

CHUNK_WORDS = 100


@dataclass(frozen=True)
class TextUnit:
    """A leaf's text and place; `sentence_ids` are the document sentences it is made of."""

    text: str
    start: int
    end: int
    paragraph: int
    sentence_ids: tuple[str, ...]


def sentence_units(doc: Document) -> list[TextUnit]:
    """One unit per sentence, in document order, with its paragraph's position."""
    paragraph_of = {p.id: p.index for p in doc.paragraphs}
    units = [
        TextUnit(doc.sentence_text(s), s.start, s.end, paragraph_of.get(s.paragraph_id, 0), (s.id,))
        for s in doc.sentences
    ]
    if not units:
        raise BadDocumentError(
            f"'{doc.name}' has no sentences to build a tree from.", "Re-index the document."
        )
    return units


def paragraph_groups(units: list[TextUnit]) -> list[list[int]]:
    """Unit positions grouped by paragraph, in order (units of one paragraph are consecutive)."""
    groups: list[list[int]] = []
    for position, unit in enumerate(units):
        if groups and units[groups[-1][0]].paragraph == unit.paragraph:
            groups[-1].append(position)
        else:
            groups.append([position])
    return groups


def word_chunks(doc: Document, max_words: int = CHUNK_WORDS) -> list[TextUnit]:
    """Greedy chunks of whole sentences, at most `max_words` each, inside one paragraph."""
    sentences = sentence_units(doc)
    chunks: list[TextUnit] = []
    for group in paragraph_groups(sentences):
        current: list[TextUnit] = []
        words = 0
        for position in group:
            unit = sentences[position]
            size = len(unit.text.split())
            if current and words + size > max_words:
                chunks.append(_join(doc, current))
                current, words = [], 0
            current.append(unit)
            words += size
        if current:
            chunks.append(_join(doc, current))
    return chunks


def _join(doc: Document, units: list[TextUnit]) -> TextUnit:
    start, end = units[0].start, units[-1].end
    ids = tuple(i for u in units for i in u.sentence_ids)
    return TextUnit(doc.text[start:end], start, end, units[0].paragraph, ids)
