"""Token-level F1 and recall of retrieved text against QASPER gold evidence.

The protocol of the reference figures in ../shared/data/README.md, so results can be compared:
text is lower-cased, punctuation is removed (articles are kept) and split on whitespace; the
retrieved text and each annotator's evidence (that annotator's evidence paragraphs joined) are
compared as bags of tokens. Several annotators are combined like QASPER's own evaluator does:
the annotator whose evidence gives the best F1 is taken, and the recall reported is that same
annotator's (not the best recall of any annotator). Evidence strings that start with
"FLOAT SELECTED" (figures and tables) are dropped by the dataset reader, and questions with no
text evidence (unanswerable, or only figures) are skipped by the caller.
"""

from __future__ import annotations

import string
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

_DROP_PUNCTUATION = str.maketrans("", "", string.punctuation)


def evidence_tokens(text: str) -> list[str]:
    return text.lower().translate(_DROP_PUNCTUATION).split()


@dataclass(frozen=True)
class EvidenceScore:
    f1: float
    recall: float
    precision: float
    annotator: int
    """Which annotator's evidence gave the best F1 (-1 when none overlaps)."""


def score_tokens(retrieved: Sequence[str], gold: Sequence[str]) -> tuple[float, float, float]:
    """(f1, recall, precision) of two token bags; 0 when either is empty or they share nothing."""
    common = sum((Counter(retrieved) & Counter(gold)).values())
    if not retrieved or not gold or not common:
        return 0.0, 0.0, 0.0
    precision, recall = common / len(retrieved), common / len(gold)
    return 2 * precision * recall / (precision + recall), recall, precision


def evidence_score(retrieved_text: str, annotators: Sequence[Sequence[str]]) -> EvidenceScore:
    """Best F1 over annotators, with that annotator's recall and precision."""
    retrieved = evidence_tokens(retrieved_text)
    best = EvidenceScore(0.0, 0.0, 0.0, -1)
    for number, evidence in enumerate(annotators):
        f1, recall, precision = score_tokens(retrieved, evidence_tokens(" ".join(evidence)))
        if f1 > best.f1:
            best = EvidenceScore(f1, recall, precision, number)
    return best
