"""Attributes an uncited answer to passages by embedding similarity, and says that it did.

Small models often answer without the `[n]` markers they were asked for. Rather than show an
answer with no sources, each answer sentence is matched to its most similar passage; those
citations are marked as attributed by the studio, never presented as the model's own.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from backend.generation.answer import Citation
from backend.ingest.segment import sentence_spans
from backend.retrieval.embedder import Embedder
from backend.retrieval.search import Passage

MIN_SIMILARITY = 0.35


def attribute_sentences(
    answer: str, passages: Sequence[Passage], embedder: Embedder, min_similarity: float = MIN_SIMILARITY
) -> tuple[str, list[Citation]]:
    """The answer with a marker after each sentence that matches a passage, and those citations."""
    spans = sentence_spans(answer)
    if not spans or not passages:
        return answer, []
    sentences = [answer[start:end] for start, end in spans]
    similarity = embedder.encode(sentences) @ embedder.encode([p.text for p in passages]).T
    pieces, cited, last = [], {}, 0
    for (_start, end), row in zip(spans, similarity, strict=True):
        best = int(np.argmax(row))
        pieces.append(answer[last:end])
        if row[best] >= min_similarity:
            pieces.append(f" [{best + 1}]")
            score = float(row[best])
            cited[best + 1] = max(score, cited.get(best + 1, score))
        last = end
    pieces.append(answer[last:])
    citations = [
        Citation(number, passages[number - 1], source="attributed", similarity=score)
        for number, score in sorted(cited.items())
    ]
    return "".join(pieces), citations
