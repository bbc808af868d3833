"""Trained inter-chunk relation classifier: the offline producer of Disco-RAG's rhetorical graph.

A span is represented by the re-normalised mean of its sentences' MiniLM vectors (the same at
training time, from GUM sentences, and at run time, from a chunk's sentences). A pair (source,
target) becomes [s, t, s - t, s * t, cosine, sizes] plus the leading cue phrase and shape of
each side's first sentence; a one-hidden-layer MLP picks an inter-chunk label. All k(k-1)
ordered pairs of a graph are scored in one forward pass after one batched embedding call.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from backend.discourse.rhetorical_graph import Edge, RhetoricalGraph
from backend.errors import ConfigError
from backend.ingest.segment import sentence_spans

DEFAULT_WEIGHTS = Path(__file__).parent / "weights" / "relation_classifier_gum_v1.pt"
PRODUCER = "relation-classifier:gum-v1"
WEIGHTS_FORMAT = "relation-classifier-v1"

EmbedFn = Callable[[Sequence[str]], np.ndarray]

CUE_PHRASES: tuple[str, ...] = (
    "as a result", "because of this", "for example", "for instance", "in addition", "in fact",
    "in contrast", "on the other hand", "in other words", "in conclusion", "in summary",
    "in particular", "that is", "to do this", "after that", "at the same time", "even so",
    "even though", "instead", "however", "but", "although", "though", "yet", "nevertheless",
    "therefore", "thus", "hence", "so", "consequently", "because", "since", "if", "unless",
    "when", "while", "then", "first", "second", "finally", "next", "later", "meanwhile",
    "also", "moreover", "furthermore", "similarly", "likewise", "and", "or", "specifically",
    "overall", "indeed", "still",
)  # fmt: skip
SHAPE_CUES = 3  # ends with "?", ends with ":", no final punctuation (headings, titles)
SIDE_CUES = len(CUE_PHRASES) + SHAPE_CUES
_WORD = re.compile(r"[a-z]+")


def side_cues(first_sentence: str) -> np.ndarray:
    """Leading cue phrase (one-hot) and surface shape of a span's first sentence."""
    cues = np.zeros(SIDE_CUES, np.float32)
    lowered = " ".join(_WORD.findall(first_sentence.lower()[:80]))
    for i, phrase in enumerate(CUE_PHRASES):
        if lowered == phrase or lowered.startswith(phrase + " "):
            cues[i] = 1.0
            break
    tail = first_sentence.rstrip()[-1:]
    cues[len(CUE_PHRASES) :] = (tail == "?", tail == ":", tail not in ".?!:;\"'”’)")
    return cues


def span_vector(sentence_vectors: np.ndarray) -> np.ndarray:
    mean = sentence_vectors.mean(axis=0)
    return (mean / max(float(np.linalg.norm(mean)), 1e-8)).astype(np.float32)


def pair_features(
    vectors: np.ndarray, cues: np.ndarray, sizes: np.ndarray, sources: np.ndarray, targets: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """(embedding features, cue features) for pairs sources[p] -> targets[p] over span arrays."""
    s, t = vectors[sources], vectors[targets]
    scalars = np.stack([(s * t).sum(1), np.log1p(sizes[sources]), np.log1p(sizes[targets])], axis=1).astype(
        np.float32
    )
    embedding = np.concatenate([s, t, s - t, s * t, scalars], axis=1)
    return embedding, np.concatenate([cues[sources], cues[targets]], axis=1)


class PairScorer(nn.Module):
    """Standardised features -> label logits; `hidden=0` is a linear (logistic regression) model."""

    def __init__(self, n_features: int, n_labels: int, hidden: int, dropout: float = 0.3) -> None:
        super().__init__()
        self.register_buffer("mean", torch.zeros(n_features))
        self.register_buffer("scale", torch.ones(n_features))
        if hidden:
            self.net: nn.Module = nn.Sequential(
                nn.Dropout(dropout), nn.Linear(n_features, hidden), nn.GELU(), nn.Dropout(dropout),
                nn.Linear(hidden, n_labels),
            )  # fmt: skip
        else:
            self.net = nn.Linear(n_features, n_labels)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.net((x - self.mean) * self.scale)


def _default_embed(texts: Sequence[str]) -> np.ndarray:
    from backend.retrieval.embedder import get_embedder

    return get_embedder().encode(list(texts))


class RelationClassifier:
    """Directed inter-chunk relation between two texts; `load_default()` uses the GUM weights."""

    def __init__(self, model: PairScorer, meta: dict[str, Any], embed: EmbedFn | None = None) -> None:
        self.model = model.eval()
        self.meta = meta
        self.labels: list[str] = list(meta["labels"])
        self.producer = str(meta.get("producer", PRODUCER))
        self._embed = embed or _default_embed

    @classmethod
    def load(cls, path: Path, embed: EmbedFn | None = None) -> RelationClassifier:
        if not Path(path).exists():
            raise ConfigError(
                f"No relation classifier weights at {path}.",
                "Train them with: python -m scripts.train_relation_classifier",
            )
        blob = torch.load(path, map_location="cpu", weights_only=True)
        if blob.get("format") != WEIGHTS_FORMAT:
            raise ConfigError(
                f"Relation classifier weights {path} have format {blob.get('format')!r}.", "Retrain them."
            )
        meta = blob["meta"]
        model = PairScorer(meta["n_features"], len(meta["labels"]), meta["hidden"])
        model.load_state_dict({k: v.to(torch.float32) for k, v in blob["state"].items()})
        return cls(model, meta, embed)

    @classmethod
    def load_default(cls, embed: EmbedFn | None = None) -> RelationClassifier:
        return cls.load(DEFAULT_WEIGHTS, embed)

    def save(self, path: Path) -> None:
        state = {k: v.detach().to(torch.float16) for k, v in self.model.state_dict().items()}
        path.parent.mkdir(parents=True, exist_ok=True)
        torch.save({"format": WEIGHTS_FORMAT, "meta": self.meta, "state": state}, path)

    def predict(self, source_text: str, target_text: str) -> tuple[str, float]:
        """How `source_text` serves `target_text`: (inter-chunk label, probability)."""
        edge = self.graph([source_text, target_text]).edges[0]
        return edge.label, float(edge.confidence or 0.0)

    def graph(self, texts: Sequence[str]) -> RhetoricalGraph:
        """Every ordered pair i != j labelled; one embedding call and one forward pass."""
        k = len(texts)
        if k < 2:
            return RhetoricalGraph(k, [], self.producer)
        sentences = [[text[a:b] for a, b in sentence_spans(text)] or [text] for text in texts]
        flat = [s for group in sentences for s in group]
        vectors = np.asarray(self._embed(flat), dtype=np.float32)
        if vectors.shape != (len(flat), self.meta["dim"]):
            raise ConfigError(
                f"The embedder gave vectors of shape {vectors.shape}; the relation classifier was trained "
                f"on {self.meta['dim']}-d vectors from {self.meta['embedder']!r}.",
                "Use that embedding model for the discourse producers.",
            )
        bounds = np.cumsum([0] + [len(g) for g in sentences])
        spans = np.stack([span_vector(vectors[a:b]) for a, b in itertools.pairwise(bounds)])
        cues = np.stack([side_cues(group[0]) for group in sentences])
        sizes = np.array([len(g) for g in sentences], np.float32)
        sources, targets = (a.ravel() for a in np.nonzero(~np.eye(k, dtype=bool)))
        probs = self.scores(*pair_features(spans, cues, sizes, sources, targets))
        best = probs.argmax(1)
        edges = [
            Edge(int(i), int(j), self.labels[b], round(float(probs[p, b]), 4))
            for p, (i, j, b) in enumerate(zip(sources, targets, best, strict=True))
        ]
        return RhetoricalGraph(k, edges, self.producer)

    def scores(self, embedding: np.ndarray, cues: np.ndarray) -> np.ndarray:
        """Label probabilities for feature rows (the model's own feature groups only)."""
        x = _select(embedding, cues, self.meta["feature_groups"])
        with torch.inference_mode():
            return self.model(torch.from_numpy(x)).softmax(-1).numpy()


def _select(embedding: np.ndarray, cues: np.ndarray, groups: Sequence[str]) -> np.ndarray:
    parts = {"embedding": embedding, "cues": cues}
    return np.concatenate([parts[g] for g in groups], axis=1).astype(np.float32)


def fit(
    embedding: np.ndarray,
    cues: np.ndarray,
    labels: np.ndarray,
    label_names: list[str],
    held_out: tuple[np.ndarray, np.ndarray, np.ndarray],
    meta: dict[str, Any],
    groups: Sequence[str] = ("embedding", "cues"),
    hidden: int = 256,
    epochs: int = 25,
    seed: int = 13,
    log: Callable[[str], None] = print,
) -> RelationClassifier:
    """Train with class weights (1/sqrt frequency); keep the epoch with the best held-out macro-F1."""
    torch.manual_seed(seed)
    x = torch.from_numpy(_select(embedding, cues, groups))
    y = torch.from_numpy(labels.astype(np.int64))
    model = PairScorer(x.shape[1], len(label_names), hidden)
    model.mean.copy_(x.mean(0))
    model.scale.copy_(1.0 / x.std(0).clamp_min(1e-3))
    counts = torch.bincount(y, minlength=len(label_names)).float().clamp_min(1.0)
    loss_fn = nn.CrossEntropyLoss(weight=counts.rsqrt() / counts.rsqrt().mean())
    optimiser = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=1e-2)
    generator = torch.Generator().manual_seed(seed)
    meta = {
        **meta,
        "labels": label_names,
        "n_features": x.shape[1],
        "hidden": hidden,
        "feature_groups": list(groups),
    }
    clf = RelationClassifier(model, meta)
    best: tuple[float, int, dict[str, torch.Tensor]] = (-1.0, 0, {})
    for epoch in range(1, epochs + 1):
        model.train()
        for batch in torch.randperm(len(x), generator=generator).split(128):
            loss = loss_fn(model(x[batch]), y[batch])
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
        model.eval()
        predicted = clf.scores(held_out[0], held_out[1]).argmax(1)
        f1 = macro_f1(held_out[2], predicted)
        if f1 > best[0]:
            best = (f1, epoch, {k: v.clone() for k, v in model.state_dict().items()})
    model.load_state_dict(best[2])
    clf.meta["epoch"] = best[1]
    log(f"{'+'.join(groups)}: best epoch {best[1]} of {epochs}, held-out macro-F1 {100 * best[0]:.1f}")
    return clf


def macro_f1(gold: np.ndarray, predicted: np.ndarray) -> float:
    """Mean F1 over the labels present in `gold` (a label never predicted scores 0)."""
    scores = []
    for label in np.unique(gold):
        tp = float(np.sum((gold == label) & (predicted == label)))
        denominator = float(np.sum(gold == label) + np.sum(predicted == label))
        scores.append(2 * tp / denominator if denominator else 0.0)
    return float(np.mean(scores))
