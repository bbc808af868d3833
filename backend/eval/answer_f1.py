"""QASPER answer scoring, written from the dataset's published definition.

Every annotator's answer becomes one reference string: extractive spans joined by ", ", else
the free-form answer, else "Yes"/"No", else "Unanswerable". A prediction scores the best token
F1 over the references after normalisation (lower case, no punctuation, no articles, single
spaces), as QASPER's official evaluator does.
"""

from __future__ import annotations

import re
import string
from collections import Counter
from collections.abc import Sequence
from typing import Any

_PUNCTUATION = frozenset(string.punctuation)
_ARTICLES = re.compile(r"\b(a|an|the)\b")
_CITATION = re.compile(r"\[\d+(?:\s*[,;]\s*\d+)*\]")


def normalise(text: str) -> list[str]:
    text = "".join(ch for ch in text.lower() if ch not in _PUNCTUATION)
    return _ARTICLES.sub(" ", text).split()


def token_f1(prediction: str, reference: str) -> float:
    """Token F1 after normalisation; 0 when no token is shared, even for two empty strings.

    The official QASPER evaluator returns 0 whenever nothing overlaps, so an empty answer never
    scores against a reference that normalises to nothing.
    """
    predicted, gold = normalise(prediction), normalise(reference)
    common = sum((Counter(predicted) & Counter(gold)).values())
    if not common:
        return 0.0
    precision, recall = common / len(predicted), common / len(gold)
    return 2 * precision * recall / (precision + recall)


def reference_answer(answer: dict[str, Any]) -> str:
    """One annotator's answer (the `answer` object of a QASPER record) as a reference string."""
    if answer.get("unanswerable"):
        return "Unanswerable"
    spans = [s for s in answer.get("extractive_spans") or [] if s.strip()]
    if spans:
        return ", ".join(spans)
    if answer.get("free_form_answer", "").strip():
        return answer["free_form_answer"]
    if answer.get("yes_no") is not None:
        return "Yes" if answer["yes_no"] else "No"
    return ""


def strip_citations(text: str) -> str:
    """The text without citation markers like [2] or [1, 3], which no reference contains."""
    return _CITATION.sub(" ", text)


def answer_f1(prediction: str, references: Sequence[str]) -> float:
    """Best F1 over the references; citation markers like [2] are removed from the prediction."""
    cleaned = strip_citations(prediction)
    return max((token_f1(cleaned, r) for r in references if r), default=0.0)
