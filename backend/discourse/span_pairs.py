"""GUM -> directed span pairs labelled with Disco-RAG inter-chunk relations, for the classifier.

Positives are pairs of sibling subtrees above the sentence level: an EDU-tree node whose two
children each cover whole sentences. The satellite -> nucleus direction takes the mapped label
of the satellite's relation; nucleus -> satellite is kept only where the inter-chunk set has a
true converse (CAUSES / RESULTS_FROM, SPECIFIES / GENERALIZES, ...). For multinuclear nodes
left -> right and right -> left both get a label. Negatives (UNRELATED) pair spans from two
documents, or spans of one document far apart. The mapping is documented in
docs/offline_producers.md.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from backend.discourse.gum import DEFAULT_GUM_DIR, parse_dis, read_conllu
from backend.discourse.relation_classifier import pair_features, side_cues, span_vector

# fine GUM label -> (satellite -> nucleus, nucleus -> satellite or None); for N-N: (left -> right,
# right -> left). Coarse where the sets differ; EXEMPLIFIES, PREVENTS and SIMULTANEOUS have no
# GUM source, so the classifier never predicts them.
GUM_TO_INTER_CHUNK: dict[str, tuple[str, str | None]] = {
    "adversative-antithesis": ("CONTRADICTS", "REPLACES"),
    "adversative-concession": ("CONTRASTS_WITH", "CONTRASTS_WITH"),
    "adversative-contrast": ("CONTRASTS_WITH", "CONTRASTS_WITH"),
    "attribution-negative": ("SUPPLEMENTS", None),
    "attribution-positive": ("SUPPLEMENTS", None),
    "causal-cause": ("CAUSES", "RESULTS_FROM"),
    "causal-result": ("RESULTS_FROM", "CAUSES"),
    "context-background": ("BACKGROUND_FOR", None),
    "context-circumstance": ("BACKGROUND_FOR", None),
    "contingency-condition": ("ENABLES", None),
    "elaboration-additional": ("ELABORATES", None),
    "elaboration-attribute": ("ELABORATES", None),
    "evaluation-comment": ("ELABORATES", None),
    "explanation-evidence": ("SUPPORTS", None),
    "explanation-justify": ("JUSTIFIES", None),
    "explanation-motivation": ("MOTIVATES", None),
    "joint-disjunction": ("COMPARES_WITH", "COMPARES_WITH"),
    "joint-list": ("SUPPLEMENTS", "SUPPLEMENTS"),
    "joint-other": ("SUPPLEMENTS", "SUPPLEMENTS"),
    "joint-sequence": ("PRECEDES", "FOLLOWS"),
    "mode-manner": ("ELABORATES", None),
    "mode-means": ("ENABLES", None),
    "organization-heading": ("GENERALIZES", "SPECIFIES"),
    "organization-phatic": ("BACKGROUND_FOR", None),
    "organization-preparation": ("BACKGROUND_FOR", None),
    "purpose-attribute": ("ELABORATES", None),
    "purpose-goal": ("MOTIVATES", None),
    "restatement-partial": ("SPECIFIES", "GENERALIZES"),
    "restatement-repetition": ("SUPPORTS", "SUPPORTS"),
    "topic-question": ("BACKGROUND_FOR", None),
    "topic-solutionhood": ("MOTIVATES", None),
}

Span = tuple[int, int]
"""Inclusive sentence range inside one document."""


@dataclass(frozen=True)
class SpanPair:
    """Directed example: how sentences `source` of `source_doc` serve `target` of `target_doc`."""

    source_doc: str
    source: Span
    target_doc: str
    target: Span
    label: str
    gum_relation: str = ""
    """The fine GUM label it came from; empty for sampled negatives."""


@dataclass
class PairDocument:
    doc_id: str
    sentences: list[str]
    pairs: list[SpanPair]


def _edu_sentences(edu_lengths: list[int], sentence_lengths: list[int]) -> list[int] | None:
    """Sentence index of each EDU by token counts; None when the counts disagree."""
    out, sentence, used = [], 0, 0
    for length in edu_lengths:
        if sentence >= len(sentence_lengths) or used + length > sentence_lengths[sentence]:
            return None
        out.append(sentence)
        used += length
        if used == sentence_lengths[sentence]:
            sentence, used = sentence + 1, 0
    return out if sentence == len(sentence_lengths) else None


def sibling_pairs(doc_id: str, dis_text: str, conllu_path: Path, max_sentences: int = 20) -> PairDocument:
    """Labelled directed pairs of sibling sentence spans (each side at most `max_sentences`)."""
    root = parse_dis(dis_text)
    sentences, words, _ = read_conllu(conllu_path)
    nodes, todo = [], [root]
    while todo:
        node = todo.pop()
        nodes.append(node)
        todo.extend(node.children)
    leaves = sorted((n for n in nodes if not n.children), key=lambda n: n.start)
    of_edu = _edu_sentences([len(leaf.text.split()) for leaf in leaves], [len(w) for w in words])
    if of_edu is None:
        return PairDocument(doc_id, sentences, [])
    first = {s: e for e, s in reversed(list(enumerate(of_edu)))}
    last = {s: e for e, s in enumerate(of_edu)}
    pairs: list[SpanPair] = []
    for node in nodes:
        if len(node.children) != 2:
            continue
        left, right = node.children
        a, b, c = of_edu[left.start], of_edu[left.end], of_edu[right.end]
        aligned = first[a] == left.start and last[b] == left.end and last[c] == right.end
        if not aligned or b + 1 != of_edu[right.start]:
            continue
        if b - a + 1 > max_sentences or c - b > max_sentences:
            continue
        pairs += _directed(doc_id, (a, b), (b + 1, c), left.role, right.role, left.relation, right.relation)
    return PairDocument(doc_id, sentences, pairs)


def _directed(
    doc_id: str, left: Span, right: Span, left_role: str, right_role: str, left_rel: str, right_rel: str
) -> list[SpanPair]:
    if left_role == "Nucleus" and right_role == "Satellite":
        relation, sat, nuc = right_rel, right, left
    elif left_role == "Satellite" and right_role == "Nucleus":
        relation, sat, nuc = left_rel, left, right
    else:
        relation, sat, nuc = left_rel, left, right  # N-N: "satellite" reads as left, "nucleus" as right
    if relation not in GUM_TO_INTER_CHUNK:
        return []  # same-unit: never above the sentence level
    forward, converse = GUM_TO_INTER_CHUNK[relation]
    out = [SpanPair(doc_id, sat, doc_id, nuc, forward, relation)]
    if converse is not None:
        out.append(SpanPair(doc_id, nuc, doc_id, sat, converse, relation))
    return out


def sample_negatives(
    docs: list[PairDocument], rng: random.Random, cross_ratio: float = 0.4, within_ratio: float = 0.2
) -> list[SpanPair]:
    """UNRELATED pairs: real span sides recombined across documents, or far apart in one document.

    Far-apart spans of one document (at least 10 sentences between them, neither a sibling of
    the other) are only approximately unrelated; documented as such.
    """
    sides = [(d.doc_id, s) for d in docs for p in d.pairs for s in (p.source, p.target)]
    n_pos = sum(len(d.pairs) for d in docs)
    out: list[SpanPair] = []
    while len(out) < int(cross_ratio * n_pos) and len({doc for doc, _ in sides}) > 1:
        (d1, s1), (d2, s2) = rng.choice(sides), rng.choice(sides)
        if d1 != d2:
            out.append(SpanPair(d1, s1, d2, s2, "UNRELATED"))
    siblings = {(p.source_doc, p.source, p.target) for d in docs for p in d.pairs}
    by_doc = {d.doc_id: sorted({s for p in d.pairs for s in (p.source, p.target)}) for d in docs}
    wanted, tries = int(within_ratio * n_pos), 0
    while wanted > 0 and tries < 50 * wanted:
        tries += 1
        doc_id = rng.choice(docs).doc_id
        spans = by_doc[doc_id]
        if len(spans) < 2:
            continue
        s1, s2 = rng.sample(spans, 2)
        far = s2[0] - s1[1] > 10 or s1[0] - s2[1] > 10
        if far and (doc_id, s1, s2) not in siblings:
            out.append(SpanPair(doc_id, s1, doc_id, s2, "UNRELATED"))
            wanted -= 1
    return out


def load_pairs(split: str, gum_dir: Path = DEFAULT_GUM_DIR) -> list[PairDocument]:
    """Every document of `split` with its sibling pairs (documents that do not align have none)."""
    rst_dir = Path(gum_dir) / split / "rst"
    if not rst_dir.is_dir():
        raise FileNotFoundError(f"No GUM split at {rst_dir}; pass --gum-dir pointing at the gum folder")
    return [
        sibling_pairs(
            path.stem, path.read_text(encoding="utf-8"), path.parent.parent / "conllu" / f"{path.stem}.conllu"
        )
        for path in sorted(rst_dir.glob("*.dis"))
    ]


def pair_matrices(
    docs: list[PairDocument], pairs: list[SpanPair], vectors: dict[str, np.ndarray]
) -> tuple[np.ndarray, np.ndarray]:
    """(embedding features, cue features) of `pairs`, from cached sentence vectors per document."""
    sentences = {d.doc_id: d.sentences for d in docs}
    index: dict[tuple[str, Span], int] = {}
    for pair in pairs:
        for key in ((pair.source_doc, pair.source), (pair.target_doc, pair.target)):
            index.setdefault(key, len(index))
    keys = list(index)
    spans = np.stack([span_vector(vectors[doc][a : b + 1]) for doc, (a, b) in keys])
    cues = np.stack([side_cues(sentences[doc][a]) for doc, (a, _) in keys])
    sizes = np.array([b - a + 1 for _, (a, b) in keys], np.float32)
    sources = np.array([index[(p.source_doc, p.source)] for p in pairs])
    targets = np.array([index[(p.target_doc, p.target)] for p in pairs])
    return pair_features(spans, cues, sizes, sources, targets)
