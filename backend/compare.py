"""Side-by-side comparison of methods on one question: evidence overlap between their answers."""

from __future__ import annotations

from collections.abc import Sequence

from backend.generation.answer import Answer


def evidence_spans(answer: Answer) -> dict[str, list[tuple[int, int]]]:
    """Character ranges read per document, merged where they touch."""
    by_doc: dict[str, list[tuple[int, int]]] = {}
    for passage in answer.passages:
        by_doc.setdefault(passage.doc_id, []).append((passage.start, passage.end))
    merged: dict[str, list[tuple[int, int]]] = {}
    for doc_id, ranges in by_doc.items():
        out: list[tuple[int, int]] = []
        for start, end in sorted(ranges):
            if out and start <= out[-1][1]:
                out[-1] = (out[-1][0], max(out[-1][1], end))
            else:
                out.append((start, end))
        merged[doc_id] = out
    return merged


def _size(spans: dict[str, list[tuple[int, int]]]) -> int:
    return sum(end - start for ranges in spans.values() for start, end in ranges)


def _intersection(a: dict[str, list[tuple[int, int]]], b: dict[str, list[tuple[int, int]]]) -> int:
    total = 0
    for doc_id in a.keys() & b.keys():
        for s1, e1 in a[doc_id]:
            for s2, e2 in b[doc_id]:
                total += max(0, min(e1, e2) - max(s1, s2))
    return total


def evidence_overlap(answers: Sequence[Answer]) -> list[list[float]]:
    """Jaccard overlap of the characters each pair of answers read (1.0 on the diagonal)."""
    spans = [evidence_spans(a) for a in answers]
    matrix = []
    for a in spans:
        row = []
        for b in spans:
            shared = _intersection(a, b)
            union = _size(a) + _size(b) - shared
            row.append(round(shared / union, 3) if union else 1.0)
        matrix.append(row)
    return matrix
