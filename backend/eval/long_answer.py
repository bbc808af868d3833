"""Long answers against ASQA's references: ROUGE-L and short-answer string exact match (STR-EM).

ROUGE-L as ASQA's scorer computes it: the summary-level LCS of the `rouge-score` package
("rougeLsum", Porter stemmer) on lower-cased text with one sentence per line, F-measure, best
over the annotators' long answers. ASQA splits sentences with NLTK's punkt model, which is
downloaded at run time; here sentences come from the project's own segmenter
(backend/ingest/segment.py), so a figure can differ slightly from the official script's.
STR-EM: the share of a question's disambiguations for which any short-answer alias, normalised
as SQuAD does (lower case, no punctuation, no articles), occurs in the normalised long answer.
Aliases that normalise to nothing are ignored (the official check would count them as found).
Both scores first remove the studio's citation markers ([1], [2, 3]) from the answer: their
digits are not part of the answer and could even "contain" a numeric alias.
"""

from __future__ import annotations

from collections.abc import Sequence

from rouge_score import rouge_scorer

from backend.eval.answer_f1 import normalise, strip_citations
from backend.ingest.segment import sentence_spans

_ROUGE = rouge_scorer.RougeScorer(["rougeLsum"], use_stemmer=True)


def sentence_lines(text: str) -> str:
    """The text lower-cased, one sentence per line: the input rougeLsum expects."""
    return "\n".join(text[start:end].lower() for start, end in sentence_spans(text))


def rouge_l(prediction: str, references: Sequence[str]) -> float:
    """Best ROUGE-L F-measure (0-1) of `prediction` over the non-empty references; 0 without either."""
    kept = [r for r in references if r.strip()]
    prediction = strip_citations(prediction)
    if not kept or not prediction.strip():
        return 0.0
    hypothesis = sentence_lines(prediction)
    return max(_ROUGE.score(sentence_lines(r), hypothesis)["rougeLsum"].fmeasure for r in kept)


def normalised_text(text: str) -> str:
    return " ".join(normalise(text))


def str_em(long_answer: str, answer_sets: Sequence[Sequence[str]]) -> float | None:
    """Share (0-1) of alias sets with an alias inside the long answer; None when there are no aliases."""
    sets = [[a for a in (normalised_text(alias) for alias in aliases) if a] for aliases in answer_sets]
    sets = [s for s in sets if s]
    if not sets:
        return None
    text = normalised_text(strip_citations(long_answer))
    return sum(any(alias in text for alias in aliases) for aliases in sets) / len(sets)
