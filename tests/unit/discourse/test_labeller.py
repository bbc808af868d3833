from pathlib import Path

import numpy as np

from backend.discourse.labeller import label_feature_size, label_unit_cues, span_vectors, tree_label_features
from backend.discourse.parser import SentenceRSTParser
from backend.discourse.rst_tree import RSTNode


def fake_embed(texts: list[str]) -> np.ndarray:
    v = np.random.default_rng(len(texts)).standard_normal((len(texts), 384)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def test_span_vectors_match_the_parsers_mean_of_children() -> None:
    vectors = fake_embed(["a", "b", "c"])
    nodes = [RSTNode(0, 1, 2, "NS", "elaboration"), RSTNode(0, 0, 1, "NN", "joint")]
    spans = span_vectors(nodes, vectors)
    assert np.allclose(spans[(0, 1)], (vectors[0] + vectors[1]) / 2)
    assert np.allclose(spans[(0, 2)], (spans[(0, 1)] + vectors[2]) / 2)


def test_label_features_one_row_per_node() -> None:
    texts = ["First sentence.", "However, a second one?", "Because of that, a third."]
    vectors = fake_embed(texts)
    cues = np.stack([label_unit_cues(t) for t in texts])
    nodes = [RSTNode(0, 0, 2, "NS", "elaboration"), RSTNode(1, 1, 2, "NN", "joint")]
    x = tree_label_features(nodes, vectors, cues, document_level=False)
    assert x.shape == (2, label_feature_size(384)) and np.isfinite(x).all()
    assert tree_label_features([], vectors, cues, False).shape == (0, label_feature_size(384))


def test_default_weights_carry_a_labeller_and_emit_seen_pairs(parser: SentenceRSTParser) -> None:
    assert parser.labeller is not None
    seen = {tuple(p) for p in parser.meta["label_pairs"]}
    tree = parser.parse([f"Sentence {i}, but also {i % 3}." for i in range(30)])
    assert all((n.nuclearity, n.relation) in seen for n in tree.nodes)


def test_weights_without_labeller_still_load_and_parse(parser: SentenceRSTParser, tmp_path: Path) -> None:
    from backend.discourse.model import save_weights

    path = tmp_path / "no_labeller.pt"
    save_weights(path, parser.model, parser.meta)  # what a gum-v1 style file holds
    plain = SentenceRSTParser.load(path, embed=fake_embed)
    assert plain.labeller is None
    plain.parse([f"Sentence {i}." for i in range(5)]).validate()
