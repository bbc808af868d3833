"""QASPER answer F1 on hand-computed cases."""

from __future__ import annotations

import pytest

from backend.eval.answer_f1 import answer_f1, normalise, reference_answer, token_f1


def test_normalise_drops_case_punctuation_and_articles() -> None:
    assert normalise("The BERT model, an encoder!") == ["bert", "model", "encoder"]


def test_token_f1_by_hand() -> None:
    # prediction: bert base model (3), gold: bert large model (3), common 2 -> P = R = 2/3
    assert token_f1("BERT base model", "the BERT large model") == pytest.approx(2 / 3)


def test_nothing_shared_scores_zero_even_for_two_empty_strings() -> None:
    """QASPER's official evaluator returns 0 when no token is shared; an earlier version gave 1.0 here."""
    assert token_f1("", "") == 0.0 and token_f1("the", "a") == 0.0
    assert token_f1("x", "") == 0.0 and token_f1("", "x") == 0.0


@pytest.mark.parametrize(
    ("answer", "reference"),
    [
        ({"unanswerable": True, "extractive_spans": ["x"]}, "Unanswerable"),
        ({"extractive_spans": ["SQuAD", "TriviaQA"], "free_form_answer": "two sets"}, "SQuAD, TriviaQA"),
        ({"extractive_spans": [], "free_form_answer": "two sets", "yes_no": None}, "two sets"),
        ({"extractive_spans": [], "free_form_answer": "", "yes_no": False}, "No"),
    ],
)
def test_reference_answer_follows_the_answer_type(answer, reference) -> None:
    assert reference_answer(answer) == reference


def test_best_reference_wins_and_citations_are_ignored() -> None:
    assert answer_f1("SQuAD [1] and TriviaQA [2, 3]", ["no idea", "SQuAD, TriviaQA"]) == pytest.approx(
        2 * (2 / 3) * 1 / (2 / 3 + 1)
    )
    assert answer_f1("anything", []) == 0.0
