"""Extractive answers: nuclei preferred, qualifying sentences kept together, every sentence cited."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence

import numpy as np

from backend.discourse.rst_tree import RSTNode, RSTTree, Unit
from backend.generation.extractive import extractive_answer, head, nucleus_flags, qualifier_links
from backend.retrieval.search import Passage


def bag_of_words(texts: Sequence[str]) -> np.ndarray:
    """Unit vectors from hashed lower-case words: similar wording, similar vector."""
    out = np.zeros((len(texts), 256), np.float32)
    for i, text in enumerate(texts):
        for word in re.findall(r"[a-z]+", text.lower()):
            out[i, int(hashlib.sha1(word.encode()).hexdigest(), 16) % 256] += 1.0
        out[i] /= max(float(np.linalg.norm(out[i])), 1e-8)
    return out


def passage(text: str, n: int = 0) -> Passage:
    return Passage(f"c{n}", "doc", "report.md", text, 0, len(text), ())


def tree_parser(nodes: list[RSTNode]):
    def parse(sentences: list[str]) -> RSTTree:
        return RSTTree([Unit(s) for s in sentences], nodes, "hand-built")

    return parse


def test_nucleus_path_and_heads() -> None:
    # (0 <-elaboration- 1) -adversative-> 2 : 0 is the root's nucleus, 1 and 2 are satellites
    tree = RSTTree(
        [Unit("a"), Unit("b"), Unit("c")],
        [RSTNode(0, 1, 2, "NS", "adversative"), RSTNode(0, 0, 1, "NS", "elaboration")],
        "hand-built",
    )
    assert nucleus_flags(tree) == [True, False, False]
    assert head(tree, 0, 2) == 0
    assert qualifier_links(tree) == {0: {2}}


def test_a_contrasting_satellite_stays_with_its_nucleus() -> None:
    text = "Costs fell in 2023 for the buses. Riders complained about delays. Depots open soon."
    parse = tree_parser([RSTNode(0, 1, 2, "NS", "elaboration"), RSTNode(0, 0, 1, "NS", "adversative")])
    result = extractive_answer("Did costs fall in 2023 for the buses?", [passage(text)], bag_of_words, parse)
    assert result.text == "Costs fell in 2023 for the buses. [1] Riders complained about delays. [1]"
    assert result.producers[0] == "hand-built"


def test_a_however_sentence_is_kept_without_a_tree() -> None:
    text = "Costs fell sharply last year. However, quality dropped. Weather was mild."
    result = extractive_answer("Why did costs fall last year?", [passage(text)], bag_of_words, None)
    assert "Costs fell sharply last year. [1] However, quality dropped. [1]" in result.text
    assert "Weather" not in result.text


def test_every_sentence_is_cited_within_the_budget_in_passage_order() -> None:
    passages = [
        passage("Electric buses cost more to buy. Electric buses save fuel every year.", 0),
        passage("Diesel buses cost less to buy but burn fuel. Bus drivers prefer electric buses.", 1),
    ]
    result = extractive_answer(
        "How much do electric buses cost?", passages, bag_of_words, None, word_budget=16
    )
    assert sum(c.words for c in result.chosen) <= 16
    pieces = re.findall(r"(.+?) \[(\d)\]\s*", result.text)
    assert [s for s, _ in pieces] == [c.text for c in result.chosen]
    assert [int(n) for _, n in pieces] == [c.passage + 1 for c in result.chosen]
    order = [(c.passage, c.index) for c in result.chosen]
    assert order == sorted(order)
    assert {c.number for c in result.citations} == {c.passage + 1 for c in result.chosen}
    assert all(c.source == "extractive" for c in result.citations)


def test_nuclei_win_a_tie_on_similarity() -> None:
    text = "Buses run daily. Buses run daily."  # same words: only the role differs
    parse = tree_parser([RSTNode(0, 0, 1, "SN", "elaboration")])
    result = extractive_answer("Do buses run daily?", [passage(text)], bag_of_words, parse, word_budget=3)
    assert [c.index for c in result.chosen] == [1]


def test_no_text_gives_an_empty_answer() -> None:
    result = extractive_answer("Anything?", [passage("   ")], bag_of_words, None)
    assert result.text == "" and result.citations == []
