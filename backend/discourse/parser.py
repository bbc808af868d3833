"""Greedy transition-based sentence-level RST parser (SHIFT / REDUCE with nuclearity and relation).

Units are sentences (paragraph trees) or paragraphs (the document tree over paragraphs). The
transition scorer sees frozen MiniLM embeddings of the top three stack subtrees and the next
queue unit plus cheap cues; a reduced subtree's vector is the mean of its children's. Illegal
actions are never taken, so any input of one or more units yields a valid binary tree. Once the
tree is built, the labeller (`labeller.py`) scores every node's (nuclearity, relation) pair in one
batched forward, mixed with the transition scorer's own label heads.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch

from backend.discourse.features import Subtree, state_features, unit_cues
from backend.discourse.labeller import LabelScorer, label_unit_cues, tree_label_features
from backend.discourse.model import TransitionScorer, load_weights
from backend.discourse.rst_tree import RSTNode, RSTTree, Unit, compose
from backend.errors import BadDocumentError, ConfigError

DEFAULT_WEIGHTS = Path(__file__).parent / "weights" / "sentence_parser_gum_v2.pt"
PRODUCER = "trained-sentence-parser:gum-v2"
SHIFT, REDUCE = 0, 1

EmbedFn = Callable[[Sequence[str]], np.ndarray]


def _default_embed(texts: Sequence[str]) -> np.ndarray:
    from backend.retrieval.embedder import get_embedder

    return get_embedder().encode(list(texts))


def paragraph_vectors(sentence_vectors: np.ndarray, paragraph_starts: Sequence[int]) -> np.ndarray:
    """A paragraph unit's vector: the re-normalised mean of its sentences' vectors."""
    bounds = [*paragraph_starts, len(sentence_vectors)]
    means = np.stack([sentence_vectors[a:b].mean(axis=0) for a, b in itertools.pairwise(bounds)])
    return (means / np.maximum(np.linalg.norm(means, axis=1, keepdims=True), 1e-8)).astype(np.float32)


@contextmanager
def _one_thread() -> Iterator[None]:
    """Decoding is thousands of tiny forwards; with several threads each costs ~40x more here."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(threads)


@dataclass
class DocumentParse:
    """One tree per paragraph (leaves: sentences) and one over the paragraphs (leaves: paragraphs)."""

    paragraph_trees: list[RSTTree]
    document_tree: RSTTree

    def integrated(self) -> RSTTree:
        """The document tree with each paragraph leaf replaced by its paragraph tree."""
        return compose(self.document_tree, self.paragraph_trees, self.document_tree.producer)


class SentenceRSTParser:
    """Trained parser; `load_default()` uses the committed GUM weights."""

    def __init__(
        self,
        model: TransitionScorer,
        meta: dict[str, Any],
        embed: EmbedFn | None = None,
        labeller: LabelScorer | None = None,
    ) -> None:
        self.model = model.eval()
        self.labeller = labeller.eval() if labeller is not None else None
        self.meta = meta
        self.producer = str(meta.get("producer", PRODUCER))
        self._embed = embed or _default_embed
        self._nuclearities: list[str] = list(meta["nuclearities"])
        self._relations: list[str] = list(meta["relations"])
        allowed = torch.tensor(meta["allowed_pairs"], dtype=torch.bool)  # (nuclearity, relation)
        self._pair_penalty = torch.where(allowed, 0.0, float("-inf"))
        if self.labeller is not None:
            pairs = meta["label_pairs"]
            self._label_pairs = [(str(nuc), str(rel)) for nuc, rel in pairs]
            width = len(self._relations)
            self._pair_index = torch.tensor(
                [self._nuclearities.index(nuc) * width + self._relations.index(rel) for nuc, rel in pairs]
            )
            self._label_mix = float(meta.get("label_mix", 0.0))

    @classmethod
    def load(cls, path: Path, embed: EmbedFn | None = None) -> SentenceRSTParser:
        model, meta, labeller = load_weights(path)
        return cls(model, meta, embed, labeller)

    @classmethod
    def load_default(cls, embed: EmbedFn | None = None) -> SentenceRSTParser:
        return cls.load(DEFAULT_WEIGHTS, embed)

    def _vectors(self, texts: Sequence[str]) -> np.ndarray:
        vectors = np.asarray(self._embed(texts), dtype=np.float32)
        if vectors.shape != (len(texts), self.meta["dim"]):
            raise ConfigError(
                f"The embedder gave vectors of shape {vectors.shape}; the parser was trained on "
                f"{self.meta['dim']}-d vectors from {self.meta['embedder']!r}.",
                "Use that embedding model for the discourse parser.",
            )
        return vectors

    def parse(self, sentences: Sequence[str], paragraph_starts: Sequence[int] | None = None) -> RSTTree:
        """One tree over `sentences`; with `paragraph_starts`, paragraph trees joined by a document tree."""
        if paragraph_starts is None or len(paragraph_starts) <= 1:
            return self.parse_vectors([Unit(s) for s in sentences], self._vectors(_nonempty(sentences)))
        starts = sorted(set(paragraph_starts))
        if starts[0] != 0 or starts[-1] >= len(sentences):
            raise ValueError(f"paragraph_starts must begin at 0 and lie inside 0..{len(sentences) - 1}")
        bounds = [*starts, len(sentences)]
        return self.parse_document([list(sentences[a:b]) for a, b in itertools.pairwise(bounds)]).integrated()

    def parse_document(self, paragraphs: Sequence[Sequence[str]]) -> DocumentParse:
        """Paragraph trees, then a tree over paragraphs (embeddings computed in one batched call)."""
        paragraphs = [list(p) for p in paragraphs if p]
        sentences = [s for p in paragraphs for s in p]
        vectors = self._vectors(_nonempty(sentences))
        starts = np.cumsum([0] + [len(p) for p in paragraphs[:-1]]).tolist()
        trees = [
            self.parse_vectors([Unit(s) for s in p], vectors[a : a + len(p)])
            for p, a in zip(paragraphs, starts, strict=True)
        ]
        par_units = [Unit(" ".join(p)) for p in paragraphs]
        outer = self.parse_vectors(par_units, paragraph_vectors(vectors, starts), document_level=True)
        return DocumentParse(trees, outer)

    def parse_vectors(
        self,
        units: list[Unit],
        vectors: np.ndarray,
        paragraph_start: np.ndarray | None = None,
        document_level: bool = False,
    ) -> RSTTree:
        """Greedy decoding over precomputed unit vectors (no embedding: what the speed test times)."""
        n = len(units)
        if paragraph_start is None:
            paragraph_start = np.arange(n) == 0
        cues = np.stack([unit_cues(u.text) for u in units])
        with torch.inference_mode(), _one_thread():
            nodes, head_scores = self._decode(vectors, cues, paragraph_start, document_level)
            if self.labeller is not None and nodes:
                label_cues = np.stack([label_unit_cues(u.text, c) for u, c in zip(units, cues, strict=True)])
                nodes = self._relabel(nodes, head_scores, vectors, label_cues, document_level)
        return RSTTree(units, nodes, self.producer, metadata={"document_level": document_level})

    def _decode(
        self, vectors: np.ndarray, cues: np.ndarray, paragraph_start: np.ndarray, document_level: bool
    ) -> tuple[list[RSTNode], list[torch.Tensor]]:
        """Greedy SHIFT/REDUCE; nodes labelled by the transition scorer, and its label scores per node."""
        n = len(vectors)
        head_scores: list[torch.Tensor] = []  # the transition scorer's label log-probs, one per node
        stack: list[Subtree] = []
        nodes: list[RSTNode] = []
        head = 0
        while head < n or len(stack) > 1:
            if len(stack) < 2:
                stack.append(Subtree(head, head, vectors[head]))
                head += 1
                continue
            x = state_features(stack, head, vectors, cues, paragraph_start, document_level)
            action, nuc, rel = self.model(torch.from_numpy(x)[None])
            if head < n and int(action[0].argmax()) == SHIFT:
                stack.append(Subtree(head, head, vectors[head]))
                head += 1
                continue
            scores = nuc.log_softmax(-1)[0][:, None] + rel.log_softmax(-1)[0][None, :] + self._pair_penalty
            best = int(scores.argmax())
            head_scores.append(scores.flatten())
            right, left = stack.pop(), stack.pop()
            nuclearity = self._nuclearities[best // len(self._relations)]
            nodes.append(
                RSTNode(
                    left.start, left.end, right.end, nuclearity, self._relations[best % len(self._relations)]
                )
            )
            stack.append(Subtree(left.start, right.end, (left.vector + right.vector) / 2))
        return nodes, head_scores

    def _relabel(
        self,
        nodes: list[RSTNode],
        head_scores: list[torch.Tensor],
        vectors: np.ndarray,
        cues: np.ndarray,
        document_level: bool,
    ) -> list[RSTNode]:
        """Labeller log-probs over seen pairs + `label_mix` x the transition scorer's, per node."""
        assert self.labeller is not None
        x = torch.from_numpy(tree_label_features(nodes, vectors, cues, document_level))
        scores = self.labeller(x).log_softmax(-1)
        if self._label_mix:
            scores = scores + self._label_mix * torch.stack(head_scores)[:, self._pair_index]
        best = scores.argmax(-1).tolist()
        pairs = [self._label_pairs[b] for b in best]
        return [RSTNode(nd.start, nd.split, nd.end, *p) for nd, p in zip(nodes, pairs, strict=True)]


def _nonempty(texts: Sequence[str]) -> list[str]:
    """Reject an empty input up front: a tree needs at least one unit."""
    if not texts:
        raise BadDocumentError("There is no sentence to parse.", "Paste or upload some text.")
    return list(texts)
