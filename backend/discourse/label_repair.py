"""Maps the labels a model writes onto the allowed sets, or says that it cannot.

Models write `Elaboration`, `elaborates`, `CONTRAST` where `CONTRASTS_WITH` is meant, or a GUM
class name. A label is accepted when it is in the set after upper-casing and joining words with
underscores; a near miss is mapped through a short table of known variants or a close spelling
match and reported as a repair; anything else is unknown (None), never guessed.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Iterable

from backend.discourse.labels import DISCO_RAG_INTRA, GUM_COARSE, to_disco_rag
from backend.discourse.rhetorical_graph import INTER_CHUNK

_INTRA_VARIANTS: dict[str, str] = {
    "ELABORATE": "ELABORATION",
    "ELABORATES": "ELABORATION",
    "EXPLAIN": "EXPLANATION",
    "EXEMPLIFICATION": "EXAMPLE",
    "CAUSAL": "CAUSE",
    "CAUSE_RESULT": "CAUSE",
    "EFFECT": "RESULT",
    "CONJUNCTION": "JOINT",
    "CONJOINED": "JOINT",
    "SAME_UNIT": "JOINT",
    "ENUMERATION": "LIST",
    "TEMPORAL_SEQUENCE": "SEQUENCE",
    "TIME": "TEMPORAL",
    "CONCESSIVE": "CONCESSION",
    "CONTRASTIVE": "CONTRAST",
    "COMPARE": "COMPARISON",
    "CONDITIONAL": "CONDITION",
    "CONTINGENCY": "CONDITION",
    "MEANS": "CIRCUMSTANCE",
    "MANNER": "CIRCUMSTANCE",
    "CONTEXT": "BACKGROUND",
    "PREPARATION": "BACKGROUND",
    "CONCLUSION": "SUMMARY",
    "PARAPHRASE": "RESTATEMENT",
    "JUSTIFY": "EVIDENCE",
    "JUSTIFICATION": "EVIDENCE",
    "ASSESSMENT": "EVALUATION",
}

_INTER_VARIANTS: dict[str, str] = {
    "SUPPORT": "SUPPORTS",
    "SUPPORTED_BY": "SUPPORTS",
    "EVIDENCE": "SUPPORTS",
    "CONTRADICT": "CONTRADICTS",
    "CONTRADICTION": "CONTRADICTS",
    "ELABORATE": "ELABORATES",
    "ELABORATION": "ELABORATES",
    "EXAMPLE": "EXEMPLIFIES",
    "EXEMPLIFY": "EXEMPLIFIES",
    "CAUSE": "CAUSES",
    "RESULT": "RESULTS_FROM",
    "RESULTS": "RESULTS_FROM",
    "ENABLE": "ENABLES",
    "PREVENT": "PREVENTS",
    "PRECEDE": "PRECEDES",
    "FOLLOW": "FOLLOWS",
    "BACKGROUND": "BACKGROUND_FOR",
    "GENERALIZE": "GENERALIZES",
    "GENERALISES": "GENERALIZES",
    "SPECIFY": "SPECIFIES",
    "COMPARES": "COMPARES_WITH",
    "COMPARISON": "COMPARES_WITH",
    "CONTRAST": "CONTRASTS_WITH",
    "CONTRASTS": "CONTRASTS_WITH",
    "SUPPLEMENT": "SUPPLEMENTS",
    "REPLACE": "REPLACES",
    "MOTIVATE": "MOTIVATES",
    "JUSTIFY": "JUSTIFIES",
    "NONE": "UNRELATED",
    "NO_RELATION": "UNRELATED",
    "NOT_RELATED": "UNRELATED",
    "NO_RELATIONSHIP": "UNRELATED",
    "INDEPENDENT": "UNRELATED",
}


def canonical(raw: str) -> str:
    """Upper case, words joined by underscores, stray punctuation and markdown dropped.

    Spelling a label in another case or with spaces is not counted as a repair.
    """
    words = re.findall(r"[A-Za-z]+", raw)
    return "_".join(words).upper()


def _repair(raw: str, allowed: Iterable[str], variants: dict[str, str]) -> tuple[str | None, bool]:
    allowed = tuple(allowed)
    label = canonical(raw)
    if not label:
        return None, False
    if label in allowed:
        return label, False
    if label in variants:
        return variants[label], True
    close = difflib.get_close_matches(label, allowed, n=1, cutoff=0.85)
    return (close[0], True) if close else (None, False)


def repair_intra_label(raw: str) -> tuple[str | None, bool]:
    """(Disco-RAG intra-chunk label or None, whether the written label was changed to get it)."""
    label, changed = _repair(raw, DISCO_RAG_INTRA, _INTRA_VARIANTS)
    if label is None and raw.strip().lower() in GUM_COARSE:
        return to_disco_rag(raw.strip().lower()), True
    return label, changed


def repair_inter_label(raw: str) -> tuple[str | None, bool]:
    """(Inter-chunk label or None, whether the written label was changed to get it)."""
    return _repair(raw, INTER_CHUNK, _INTER_VARIANTS)


def label_in(text: str, repair: Callable[[str], tuple[str | None, bool]]) -> tuple[str | None, str]:
    """The allowed label among the first one to three words of `text`, longest first.

    Returns (label or None, the words as written when they had to be mapped, else '').
    """
    words = re.findall(r"[A-Za-z][A-Za-z_-]*", text)[:3]
    for size in range(len(words), 0, -1):
        written = " ".join(words[:size])
        label, changed = repair(written)
        if label is not None:
            return label, written if changed else ""
    return None, ""
