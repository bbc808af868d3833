"""The scorer: one small MLP over state features with three heads (action, nuclearity, relation).

The file also holds the REDUCE-time labeller (`labeller.LabelScorer`) when one was trained.
Weights are stored as float16 with everything needed to rebuild the model and to refuse a
mismatched embedder, so the committed file is small and self-describing.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import torch
from torch import nn

from backend.discourse.labeller import LabelScorer
from backend.errors import ConfigError

WEIGHTS_FORMAT = 2  # 2 adds the labeller; format 1 files (no labeller) still load


class TransitionScorer(nn.Module):
    """Features -> logits for SHIFT/REDUCE, nuclearity and relation."""

    def __init__(
        self, n_features: int, hidden: int, n_nuclearity: int, n_relations: int, dropout: float = 0.2
    ):
        super().__init__()
        # Standardisation fitted on the training states: unit-vector coordinates (~0.05) and their
        # products (~0.003) would otherwise be drowned by 0-1 cues.
        self.register_buffer("mean", torch.zeros(n_features))
        self.register_buffer("scale", torch.ones(n_features))
        self.body = nn.Sequential(
            nn.Dropout(dropout), nn.Linear(n_features, hidden), nn.GELU(), nn.Dropout(dropout)
        )
        self.action = nn.Linear(hidden, 2)
        self.nuclearity = nn.Linear(hidden, n_nuclearity)
        self.relation = nn.Linear(hidden, n_relations)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        h = self.body((x - self.mean) * self.scale)
        return self.action(h), self.nuclearity(h), self.relation(h)


def fit_standardisation(model: TransitionScorer, features: torch.Tensor) -> None:
    model.mean.copy_(features.mean(0))
    model.scale.copy_(1.0 / features.std(0).clamp_min(1e-3))


def _half(module: nn.Module) -> dict[str, torch.Tensor]:
    return {k: v.detach().to(torch.float16) for k, v in module.state_dict().items()}


def save_weights(
    path: Path, model: TransitionScorer, meta: dict[str, Any], labeller: LabelScorer | None = None
) -> None:
    """float16 state dicts + metadata (sizes, label lists, allowed label pairs, embedder name)."""
    blob = {"format": WEIGHTS_FORMAT, "meta": meta, "state": _half(model)}
    if labeller is not None:
        blob["label_state"] = _half(labeller)
    path.parent.mkdir(parents=True, exist_ok=True)
    torch.save(blob, path)


def load_weights(path: Path) -> tuple[TransitionScorer, dict[str, Any], LabelScorer | None]:
    if not Path(path).exists():
        raise ConfigError(
            f"No RST parser weights at {path}.", "Train them with: python scripts/train_rst_parser.py"
        )
    blob = torch.load(path, map_location="cpu", weights_only=True)
    if blob.get("format") not in (1, WEIGHTS_FORMAT):
        raise ConfigError(f"RST parser weights {path} have format {blob.get('format')!r}.", "Retrain them.")
    meta = blob["meta"]
    model = TransitionScorer(
        meta["n_features"], meta["hidden"], len(meta["nuclearities"]), len(meta["relations"])
    )
    model.load_state_dict({k: v.to(torch.float32) for k, v in blob["state"].items()})
    model.eval()
    labeller = None
    if "label_state" in blob:
        labeller = LabelScorer(meta["label_features"], meta["label_hidden"], len(meta["label_pairs"]))
        labeller.load_state_dict({k: v.to(torch.float32) for k, v in blob["label_state"].items()})
        labeller.eval()
    return model, meta, labeller
