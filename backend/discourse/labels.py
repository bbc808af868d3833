"""Relation label sets: GUM coarse classes (the parser's) and the Disco-RAG intra-chunk set.

GUM's fine labels (`elaboration-additional`) are reduced to the class before the dash, except
`same-unit`, which has no dash-free class and stays whole. One table maps every class (and a few
fine labels, where the Disco-RAG set has a closer name) to the Disco-RAG labels shown in the app;
a second, many-to-one table maps Disco-RAG labels back, so LLM-built trees can be scored on GUM.
"""

from __future__ import annotations

NUCLEARITIES: tuple[str, ...] = ("NS", "SN", "NN")

GUM_COARSE: tuple[str, ...] = (
    "adversative",
    "attribution",
    "causal",
    "context",
    "contingency",
    "elaboration",
    "evaluation",
    "explanation",
    "joint",
    "mode",
    "organization",
    "purpose",
    "restatement",
    "same-unit",
    "topic",
)

DISCO_RAG_INTRA: tuple[str, ...] = (
    "ELABORATION",
    "EXPLANATION",
    "EVIDENCE",
    "EXAMPLE",
    "CONTRAST",
    "COMPARISON",
    "CONCESSION",
    "ANTITHESIS",
    "CAUSE",
    "RESULT",
    "CONSEQUENCE",
    "PURPOSE",
    "CONDITION",
    "TEMPORAL",
    "SEQUENCE",
    "BACKGROUND",
    "CIRCUMSTANCE",
    "SUMMARY",
    "RESTATEMENT",
    "EVALUATION",
    "INTERPRETATION",
    "ATTRIBUTION",
    "DEFINITION",
    "CLASSIFICATION",
    "JOINT",
    "LIST",
)

LABEL_SETS: dict[str, frozenset[str]] = {
    "gum-coarse": frozenset(GUM_COARSE),
    "disco-rag-intra": frozenset(DISCO_RAG_INTRA),
}

_COARSE_TO_DISCO: dict[str, str] = {
    "adversative": "CONTRAST",
    "attribution": "ATTRIBUTION",
    "causal": "CAUSE",
    "context": "BACKGROUND",
    "contingency": "CONDITION",
    "elaboration": "ELABORATION",
    "evaluation": "EVALUATION",
    "explanation": "EXPLANATION",
    "joint": "JOINT",
    "mode": "CIRCUMSTANCE",  # manner / means: no closer Disco-RAG label
    "organization": "BACKGROUND",  # heading / preparation / phatic: approximate
    "purpose": "PURPOSE",
    "restatement": "RESTATEMENT",
    "same-unit": "JOINT",
    "topic": "ELABORATION",  # question -> answer, problem -> solution: approximate
}

_FINE_TO_DISCO: dict[str, str] = {
    "adversative-concession": "CONCESSION",
    "adversative-antithesis": "ANTITHESIS",
    "causal-result": "RESULT",
    "context-circumstance": "CIRCUMSTANCE",
    "explanation-evidence": "EVIDENCE",
    "joint-list": "LIST",
    "joint-sequence": "SEQUENCE",
    "organization-heading": "SUMMARY",
}


def coarse_relation(fine: str) -> str:
    """GUM fine label -> coarse class; raises KeyError for a label outside GUM's inventory."""
    coarse = fine if fine == "same-unit" else fine.split("-", 1)[0]
    if coarse not in LABEL_SETS["gum-coarse"]:
        raise KeyError(f"Unknown GUM relation {fine!r}; known classes: {', '.join(GUM_COARSE)}")
    return coarse


def to_disco_rag(label: str) -> str:
    """GUM coarse class or fine label -> Disco-RAG intra-chunk label (fine labels map closer)."""
    if label in _FINE_TO_DISCO:
        return _FINE_TO_DISCO[label]
    return _COARSE_TO_DISCO[coarse_relation(label)]


_DISCO_TO_COARSE: dict[str, str] = {
    # images of the forward table go back to the class they come from
    "ANTITHESIS": "adversative",
    "ATTRIBUTION": "attribution",
    "BACKGROUND": "context",  # also organization's image (approximate), context is its own
    "CAUSE": "causal",
    "CIRCUMSTANCE": "context",  # context-circumstance; mode's image is approximate
    "CONCESSION": "adversative",
    "CONDITION": "contingency",
    "CONTRAST": "adversative",
    "ELABORATION": "elaboration",  # also topic's image (approximate)
    "EVALUATION": "evaluation",
    "EVIDENCE": "explanation",
    "EXPLANATION": "explanation",
    "JOINT": "joint",  # also same-unit's image, which no LLM is asked for
    "LIST": "joint",
    "PURPOSE": "purpose",
    "RESTATEMENT": "restatement",
    "RESULT": "causal",
    "SEQUENCE": "joint",
    # by GUM's own definitions, not the forward table
    "SUMMARY": "restatement",  # GUM files summaries under restatement-partial (forward: organization-heading)
    "CLASSIFICATION": "elaboration",
    "COMPARISON": "adversative",  # GUM's adversative-contrast covers comparison
    "CONSEQUENCE": "causal",
    "DEFINITION": "elaboration",
    "EXAMPLE": "elaboration",
    "INTERPRETATION": "evaluation",
    "TEMPORAL": "context",  # GUM's context-circumstance covers temporal settings
}


def from_disco_rag(label: str) -> str:
    """Disco-RAG intra-chunk label -> GUM coarse class, so LLM trees are scored by the same metric.

    Many to one, and never mode, organization, same-unit or topic (no Disco-RAG label is theirs).

    Raises:
        KeyError: a label outside the Disco-RAG intra-chunk set.
    """
    if label not in _DISCO_TO_COARSE:
        raise KeyError(f"Unknown Disco-RAG label {label!r}; known labels: {', '.join(DISCO_RAG_INTRA)}")
    return _DISCO_TO_COARSE[label]
