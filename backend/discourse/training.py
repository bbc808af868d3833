"""Train the transition scorer on GUM with a static oracle; select the epoch on GUM dev.

Every gold tree (paragraph trees over sentences, document trees over paragraphs) is replayed
as its unique SHIFT/REDUCE sequence; states where the action is forced add only label loss.
Sentence embeddings are computed once per split and cached as .npy, so epochs are seconds.
The labeller is trained afterwards on every gold node (teacher forcing) and selected on dev with
the trained transition scorer's predicted structure.
"""

from __future__ import annotations

import hashlib
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from backend.discourse.features import Subtree, feature_size, state_features, unit_cues
from backend.discourse.gum import GumDocument
from backend.discourse.gum_eval import score, trained_parser
from backend.discourse.labeller import (
    LabelScorer,
    label_feature_size,
    label_unit_cues,
    tree_label_features,
)
from backend.discourse.labels import GUM_COARSE, NUCLEARITIES
from backend.discourse.model import TransitionScorer, fit_standardisation, save_weights
from backend.discourse.parser import PRODUCER, SentenceRSTParser, paragraph_vectors
from backend.discourse.rst_tree import RSTTree

Log = Callable[[str], None]


def cached_vectors(
    docs: list[GumDocument], cache_file: Path, embed: Callable[[list[str]], np.ndarray]
) -> dict[str, np.ndarray]:
    """Sentence vectors per document id, read from `cache_file` when its text hash matches."""
    texts = [s for doc in docs for s in doc.sentences]
    digest = hashlib.sha1("\n".join(texts).encode("utf-8")).hexdigest()[:16]
    path = cache_file.with_name(f"{cache_file.stem}-{digest}.npy")
    if path.exists():
        flat = np.load(path)
    else:
        flat = np.asarray(embed(texts), dtype=np.float32)
        path.parent.mkdir(parents=True, exist_ok=True)
        np.save(path, flat)
    out, pos = {}, 0
    for doc in docs:
        out[doc.doc_id] = flat[pos : pos + len(doc.sentences)]
        pos += len(doc.sentences)
    return out


@dataclass
class Examples:
    features: np.ndarray
    action: np.ndarray  # -1 where the action was forced
    nuclearity: np.ndarray  # -1 on SHIFT
    relation: np.ndarray  # -1 on SHIFT


def oracle_states(
    tree: RSTTree, vectors: np.ndarray, document_level: bool
) -> list[tuple[np.ndarray, int, int, int]]:
    """(features, action or -1, nuclearity or -1, relation or -1) along the gold transition sequence."""
    n = len(tree.units)
    gold = tree.by_span()
    cues = np.stack([unit_cues(u.text) for u in tree.units])
    par_start = np.arange(n) == 0
    stack: list[Subtree] = []
    head, out = 0, []
    while head < n or len(stack) > 1:
        if len(stack) < 2:
            stack.append(Subtree(head, head, vectors[head]))
            head += 1
            continue
        x = state_features(stack, head, vectors, cues, par_start, document_level)
        node = gold.get((stack[-2].start, stack[-1].end))
        forced = head == n
        if node is None:
            out.append((x, 0, -1, -1))
            stack.append(Subtree(head, head, vectors[head]))
            head += 1
            continue
        out.append(
            (x, -1 if forced else 1, NUCLEARITIES.index(node.nuclearity), GUM_COARSE.index(node.relation))
        )
        right, left = stack.pop(), stack.pop()
        stack.append(Subtree(left.start, right.end, (left.vector + right.vector) / 2))
    return out


def gold_trees(
    docs: list[GumDocument], vectors: dict[str, np.ndarray]
) -> list[tuple[RSTTree, np.ndarray, bool]]:
    """(tree, unit vectors, document_level) for every paragraph tree and tree over paragraphs."""
    out = []
    for doc in docs:
        vecs = vectors[doc.doc_id]
        for tree, start in zip(doc.paragraph_trees, doc.paragraph_starts, strict=True):
            out.append((tree, vecs[start : start + len(tree.units)], False))
        out.append((doc.paragraphs_tree, paragraph_vectors(vecs, doc.paragraph_starts), True))
    return out


def build_examples(docs: list[GumDocument], vectors: dict[str, np.ndarray]) -> Examples:
    states = []
    for tree, vecs, document_level in gold_trees(docs, vectors):
        states += oracle_states(tree, vecs, document_level)
    return Examples(
        np.stack([s[0] for s in states]),
        np.array([s[1] for s in states], np.int64),
        np.array([s[2] for s in states], np.int64),
        np.array([s[3] for s in states], np.int64),
    )


def allowed_pairs(examples: Examples) -> list[list[bool]]:
    """(nuclearity, relation) pairs seen in training; decoding never emits an unseen pair."""
    seen = np.zeros((len(NUCLEARITIES), len(GUM_COARSE)), bool)
    mask = examples.nuclearity >= 0
    seen[examples.nuclearity[mask], examples.relation[mask]] = True
    return seen.tolist()


def _selection_score(scores: dict[str, Any]) -> float:
    return float(
        np.mean([s.f1(m) for s in scores.values() for m in ("span", "nuclearity", "relation", "full")])
    )


def train(
    train_docs: list[GumDocument],
    dev_docs: list[GumDocument],
    train_vectors: dict[str, np.ndarray],
    dev_vectors: dict[str, np.ndarray],
    out_path: Path,
    embedder_name: str,
    seed: int = 13,
    epochs: int = 20,
    hidden: int = 256,
    lr: float = 1e-3,
    dropout: float = 0.2,
    log: Log = print,
) -> dict[str, Any]:
    """Train, keep the epoch with the best mean dev F1, save weights; returns a small report."""
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.use_deterministic_algorithms(True)
    began = time.perf_counter()
    ex = build_examples(train_docs, train_vectors)
    dim = next(iter(train_vectors.values())).shape[1]
    meta: dict[str, Any] = {
        "producer": PRODUCER,
        "embedder": embedder_name,
        "dim": dim,
        "n_features": feature_size(dim),
        "hidden": hidden,
        "dropout": dropout,
        "nuclearities": list(NUCLEARITIES),
        "relations": list(GUM_COARSE),
        "allowed_pairs": allowed_pairs(ex),
        "seed": seed,
    }
    log(f"{len(ex.action)} oracle states, {ex.features.shape[1]} features")
    x = torch.from_numpy(ex.features)
    y = [torch.from_numpy(a) for a in (ex.action, ex.nuclearity, ex.relation)]
    model = TransitionScorer(meta["n_features"], hidden, len(NUCLEARITIES), len(GUM_COARSE), dropout)
    fit_standardisation(model, x)
    optimiser = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=1e-2)
    steps = epochs * -(-len(x) // 64)
    schedule = torch.optim.lr_scheduler.CosineAnnealingLR(optimiser, steps)  # calmer late epochs
    loss_fn = nn.CrossEntropyLoss(ignore_index=-1)
    best: tuple[float, int, dict[str, torch.Tensor]] = (-1.0, -1, {})
    generator = torch.Generator().manual_seed(seed)
    for epoch in range(1, epochs + 1):
        model.train()
        total = 0.0
        for batch in torch.randperm(len(x), generator=generator).split(64):
            logits = model(x[batch])
            loss = sum(loss_fn(logit, target[batch]) for logit, target in zip(logits, y, strict=True))
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            schedule.step()
            total += loss.item() * len(batch)
        dev = score(dev_docs, trained_parser(SentenceRSTParser(model, meta), dev_vectors))
        selection = _selection_score(dev)
        log(
            f"epoch {epoch:2d} loss {total / len(x):.3f} dev mean F1 {selection:.2f} "
            + " ".join(f"{lvl}:{s.f1('span'):.1f}/{s.f1('full'):.1f}" for lvl, s in dev.items())
        )
        if selection > best[0]:
            best = (selection, epoch, {k: v.clone() for k, v in model.state_dict().items()})
    model.load_state_dict(best[2])
    model.eval()
    meta["epoch"] = best[1]
    log(f"transition scorer: best epoch {best[1]} (dev mean F1 {best[0]:.2f})")
    labeller, label_report = train_labeller(
        model, meta, train_docs, dev_docs, train_vectors, dev_vectors, seed=seed, log=log
    )
    save_weights(out_path, model, meta, labeller)
    return {
        "best_epoch": best[1],
        **label_report,
        "seconds": time.perf_counter() - began,
    }


def label_examples(
    docs: list[GumDocument], vectors: dict[str, np.ndarray]
) -> tuple[np.ndarray, list[tuple[str, str]]]:
    """Labeller features and gold (nuclearity, relation) of every gold node."""
    feats, labels = [], []
    for tree, vecs, document_level in gold_trees(docs, vectors):
        if tree.nodes:
            cues = np.stack([label_unit_cues(u.text) for u in tree.units])
            feats.append(tree_label_features(tree.nodes, vecs, cues, document_level))
            labels += [(n.nuclearity, n.relation) for n in tree.nodes]
    return np.concatenate(feats), labels


def train_labeller(
    model: TransitionScorer,
    meta: dict[str, Any],
    train_docs: list[GumDocument],
    dev_docs: list[GumDocument],
    train_vectors: dict[str, np.ndarray],
    dev_vectors: dict[str, np.ndarray],
    seed: int = 13,
    epochs: int = 8,
    hidden: int = 256,
    lr: float = 3e-4,
    dropout: float = 0.7,
    label_smoothing: float = 0.1,
    label_mix: float = 0.5,
    log: Log = print,
) -> tuple[LabelScorer, dict[str, Any]]:
    """Teacher-forced labeller on gold nodes; the epoch is chosen with predicted structure on dev.

    Fills `meta` with the labeller's sizes, its label pairs (those seen in training, in sorted
    order) and `label_mix`, the weight of the transition scorer's label heads at decoding.
    """
    torch.manual_seed(seed)
    feats, labels = label_examples(train_docs, train_vectors)
    pairs = sorted(set(labels))
    meta.update(
        label_features=label_feature_size(meta["dim"]),
        label_hidden=hidden,
        label_pairs=[list(p) for p in pairs],
        label_mix=label_mix,
        label_dropout=dropout,
    )
    log(f"labeller: {len(labels)} gold nodes, {len(pairs)} (nuclearity, relation) pairs")
    x = torch.from_numpy(feats)
    y = torch.tensor([pairs.index(p) for p in labels])
    labeller = LabelScorer(x.shape[1], hidden, len(pairs), dropout)
    labeller.mean.copy_(x.mean(0))
    labeller.scale.copy_(1.0 / x.std(0).clamp_min(1e-3))
    optimiser = torch.optim.AdamW(labeller.parameters(), lr=lr, weight_decay=0.1)
    schedule = torch.optim.lr_scheduler.CosineAnnealingLR(optimiser, epochs * -(-len(x) // 64))
    loss_fn = nn.CrossEntropyLoss(label_smoothing=label_smoothing)
    generator = torch.Generator().manual_seed(seed)
    best: tuple[float, int, dict[str, torch.Tensor]] = (-1.0, -1, {})
    for epoch in range(1, epochs + 1):
        labeller.train()
        for batch in torch.randperm(len(x), generator=generator).split(64):
            loss = loss_fn(labeller(x[batch]), y[batch])
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            schedule.step()
        labeller.eval()
        parser = SentenceRSTParser(model, meta, labeller=labeller)
        dev = score(dev_docs, trained_parser(parser, dev_vectors))
        selection = _selection_score(dev)
        log(
            f"labeller epoch {epoch:2d} dev mean F1 {selection:.2f} "
            + " ".join(f"{lvl}:{s.f1('relation'):.1f}/{s.f1('full'):.1f}" for lvl, s in dev.items())
        )
        if selection > best[0]:
            best = (selection, epoch, {k: v.clone() for k, v in labeller.state_dict().items()})
    labeller.load_state_dict(best[2])
    meta["label_epoch"] = best[1]
    return labeller.eval(), {"label_epoch": best[1], "dev_mean_f1": best[0]}
