"""Extractive cited answers: evidence sentences chosen and ordered, no generator involved.

Used when no capable LLM is configured (the embedded base model cannot follow instructions), and
as a method to compare against generated answers. Sentences are scored by cosine similarity to
the question, with a bonus for nuclei of their passage's RST tree (sentences on the nucleus path
from the root carry the core content). A satellite that contrasts, concedes or sets a condition
on a chosen nucleus is kept with it, as the tree says; a leading contrast cue ("However, ...")
binds a sentence to the one before it as a fallback for the parser's weak relation labels.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from backend.discourse.rst_tree import RSTTree
from backend.generation.answer import Citation
from backend.ingest.segment import sentence_spans
from backend.retrieval.search import Passage

EmbedFn = Callable[[Sequence[str]], np.ndarray]
ParseFn = Callable[[list[str]], RSTTree]

QUALIFYING_RELATIONS = frozenset({"adversative", "contingency"})
"""GUM coarse classes whose satellite must stay with its nucleus: contrast, concession, condition."""
CONTRAST_CUE = re.compile(
    r"^(however|but|yet|although|though|nevertheless|nonetheless|still|even so|on the other hand|"
    r"in contrast|instead|unless|otherwise)\b",
    re.IGNORECASE,
)
CUE_PRODUCER = "contrast-cue-heuristic"


@dataclass(frozen=True)
class Candidate:
    """One sentence of one passage: its place, text, role and score."""

    passage: int
    index: int
    text: str
    nucleus: bool
    similarity: float

    @property
    def words(self) -> int:
        return len(self.text.split())


@dataclass
class ExtractiveAnswer:
    text: str
    citations: list[Citation]
    chosen: list[Candidate]
    producers: list[str]


def nucleus_flags(tree: RSTTree) -> list[bool]:
    """True for units on the nucleus path from the root (never inside a satellite child)."""
    flags = [True] * len(tree.units)
    for node in tree.nodes:
        if node.nuclearity == "NN":
            continue
        start, end = node.child_spans[1] if node.nuclearity == "NS" else node.child_spans[0]
        for i in range(start, end + 1):
            flags[i] = False
    return flags


def head(tree: RSTTree, start: int, end: int) -> int:
    """The unit a span is about: follow nucleus children (the left one of N-N) down to a leaf."""
    spans = tree.by_span()
    while start < end:
        node = spans[(start, end)]
        start, end = node.child_spans[1] if node.nuclearity == "SN" else node.child_spans[0]
    return start


def qualifier_links(tree: RSTTree) -> dict[int, set[int]]:
    """unit -> heads of the spans that contrast with, concede to or condition the span it heads."""
    links: dict[int, set[int]] = {}
    for node in tree.nodes:
        if node.relation not in QUALIFYING_RELATIONS:
            continue
        left, right = (head(tree, *span) for span in node.child_spans)
        if node.nuclearity in ("NS", "NN"):
            links.setdefault(left, set()).add(right)
        if node.nuclearity in ("SN", "NN"):
            links.setdefault(right, set()).add(left)
    return links


def cue_links(sentences: Sequence[str]) -> dict[int, set[int]]:
    """A sentence opening with a contrast cue qualifies the one before it: keep them together."""
    links: dict[int, set[int]] = {}
    for i in range(1, len(sentences)):
        if CONTRAST_CUE.match(sentences[i].lstrip()):
            links.setdefault(i - 1, set()).add(i)
            links.setdefault(i, set()).add(i - 1)
    return links


def extractive_answer(
    question: str,
    passages: Sequence[Passage],
    embed: EmbedFn,
    parse: ParseFn | None,
    word_budget: int = 120,
    nucleus_bonus: float = 0.05,
    min_similarity: float = 0.15,
) -> ExtractiveAnswer:
    """Pick sentences by question similarity (+ nucleus bonus) up to `word_budget`, each cited [n].

    `parse` builds a passage's sentence-level RST tree; None means no tree (every sentence a
    nucleus, cue links only). Chosen sentences are ordered by passage rank, then document order.
    """
    sentences = [[p.text[a:b] for a, b in sentence_spans(p.text)] for p in passages]
    flat = [s for group in sentences for s in group]
    if not flat:
        return ExtractiveAnswer("", [], [], [])
    vectors = np.asarray(embed([question, *flat]), dtype=np.float32)
    similarity = vectors[1:] @ vectors[0]
    producers = [CUE_PRODUCER]
    candidates: list[list[Candidate]] = []
    links: list[dict[int, set[int]]] = []
    position = 0
    for p, group in enumerate(sentences):
        tree = parse(group) if parse is not None and group else None
        flags = nucleus_flags(tree) if tree is not None else [True] * len(group)
        merged = cue_links(group)
        if tree is not None:
            if tree.producer not in producers:
                producers.insert(0, tree.producer)
            for unit, others in qualifier_links(tree).items():
                merged.setdefault(unit, set()).update(others)
        candidates.append(
            [Candidate(p, i, s, flags[i], float(similarity[position + i])) for i, s in enumerate(group)]
        )
        links.append(merged)
        position += len(group)
    chosen = _select(candidates, links, word_budget, nucleus_bonus, min_similarity)
    return _render(chosen, passages, producers)


def _select(
    candidates: list[list[Candidate]],
    links: list[dict[int, set[int]]],
    word_budget: int,
    nucleus_bonus: float,
    min_similarity: float,
) -> list[Candidate]:
    """Greedy by score; a sentence enters with the sentences that qualify it, or not at all."""
    ranked = sorted(
        (c for group in candidates for c in group),
        key=lambda c: c.similarity + (nucleus_bonus if c.nucleus else 0.0),
        reverse=True,
    )
    chosen: dict[tuple[int, int], Candidate] = {}
    used = 0
    for best in ranked:
        if best.similarity < min_similarity and chosen:
            break
        key = (best.passage, best.index)
        if key in chosen:
            continue
        group = [best] + [
            candidates[best.passage][j]
            for j in sorted(links[best.passage].get(best.index, ()))
            if (best.passage, j) not in chosen
        ]
        cost = sum(c.words for c in group)
        if used + cost > word_budget:
            if chosen:
                continue
            group, cost = [best], best.words  # nothing fits: the best sentence alone
        for c in group:
            chosen[(c.passage, c.index)] = c
        used += cost
    return sorted(chosen.values(), key=lambda c: (c.passage, c.index))


def _render(chosen: list[Candidate], passages: Sequence[Passage], producers: list[str]) -> ExtractiveAnswer:
    text = " ".join(f"{c.text} [{c.passage + 1}]" for c in chosen)
    best: dict[int, float] = {}
    for c in chosen:
        best[c.passage] = max(best.get(c.passage, -1.0), c.similarity)
    citations = [
        Citation(p + 1, passages[p], source="extractive", similarity=round(s, 3))
        for p, s in sorted(best.items())
    ]
    return ExtractiveAnswer(text, citations, chosen, producers)
