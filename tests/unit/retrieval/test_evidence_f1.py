"""Token-level evidence F1 and recall against hand-computed cases."""

from __future__ import annotations

import pytest

from backend.eval.evidence_f1 import evidence_score, evidence_tokens


def test_tokens_are_lower_cased_without_punctuation_and_keep_articles() -> None:
    assert evidence_tokens("The BERT-base model, (2019)!") == ["the", "bertbase", "model", "2019"]


def test_hand_computed_f1_and_recall() -> None:
    # retrieved: a b c d (4 tokens); gold: c d e f g h (6 tokens); overlap 2
    score = evidence_score("a b c d", [["c d e", "f g h"]])
    assert score.precision == pytest.approx(2 / 4)
    assert score.recall == pytest.approx(2 / 6)
    assert score.f1 == pytest.approx(2 * 0.5 * (1 / 3) / (0.5 + 1 / 3))


def test_repeated_tokens_count_only_as_often_as_in_the_gold() -> None:
    score = evidence_score("x x x y", [["x y"]])
    assert score.recall == 1.0 and score.precision == pytest.approx(2 / 4)


def test_the_best_f1_annotator_is_chosen_and_its_own_recall_reported() -> None:
    # annotator 0: gold "a b" -> precision 2/4, recall 1, f1 0.667
    # annotator 1: gold "a b c d e f g h" -> precision 4/4, recall 0.5, f1 0.667 (tie: first kept)
    # annotator 2: gold "a z" -> f1 1/3 ; annotator 3 shares nothing
    score = evidence_score("a b c d", [["a b"], ["a b c d", "e f g h"], ["a z"], ["q"]])
    assert score.annotator == 0 and score.recall == 1.0
    better = evidence_score("a b c d", [["a z"], ["a b c d e"]])
    assert better.annotator == 1 and better.recall == pytest.approx(4 / 5)


def test_nothing_in_common_or_nothing_retrieved_scores_zero() -> None:
    assert evidence_score("", [["a"]]).f1 == 0.0
    assert evidence_score("b", [["a"]]).annotator == -1
