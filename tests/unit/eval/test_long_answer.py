"""ROUGE-L and STR-EM of long answers on hand-worked cases."""

from __future__ import annotations

import pytest

from backend.eval.long_answer import rouge_l, sentence_lines, str_em


def test_rouge_l_is_the_lcs_f_measure() -> None:
    # tokens: the cat sat on the mat / the cat lay on the mat; LCS "the cat on the mat" = 5 of 6
    assert rouge_l("The cat sat on the mat.", ["the cat lay on the mat"]) == pytest.approx(5 / 6)


def test_rouge_l_is_summary_level_so_sentence_order_does_not_matter() -> None:
    reference = "The bridge opened in 1931. It was replaced in 2004."
    swapped = "It was replaced in 2004. The bridge opened in 1931."
    assert sentence_lines(swapped) == "it was replaced in 2004.\nthe bridge opened in 1931."
    assert rouge_l(swapped, [reference]) == pytest.approx(1.0)


def test_rouge_l_stems_and_keeps_the_best_reference() -> None:
    assert rouge_l("the bridge opens", ["the bridge opened"]) == pytest.approx(1.0)
    worse, better = "a truss of steel", "the bridge opened in 1931"
    assert rouge_l("the bridge opened in 1931", [worse, better]) == pytest.approx(1.0)


def test_rouge_l_is_zero_without_an_answer_or_references() -> None:
    assert rouge_l("", ["the bridge"]) == 0.0
    assert rouge_l("the bridge", ["", "  "]) == 0.0


def test_str_em_counts_alias_sets_found_after_normalisation() -> None:
    answer = "The first bridge opened in May, 1931; the second one in the year 2004."
    sets = [["May 1931", "1931"], ["2004"], ["the Golden Gate"]]
    # "may 1931" is found once punctuation goes; "the golden gate" -> "golden gate" is not there
    assert str_em(answer, sets) == pytest.approx(2 / 3)


def test_str_em_ignores_aliases_that_normalise_to_nothing() -> None:
    assert str_em("nothing relevant here", [["the"], ["1931"]]) == 0.0
    assert str_em("anything", [["a", "..."], []]) is None


def test_citation_markers_are_not_scored() -> None:
    assert rouge_l("The bridge opened in 1931. [1]", ["The bridge opened in 1931."]) == pytest.approx(1.0)
    assert str_em("It opened in May. [1, 2]", [["1"], ["May"]]) == pytest.approx(1 / 2)
