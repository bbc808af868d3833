import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from backend.discourse.parser import SentenceRSTParser
from backend.errors import BadDocumentError, ConfigError


def sentences(n: int) -> list[str]:
    return [
        f"However, sentence number {i} says something?" if i % 7 == 3 else f"Sentence {i}." for i in range(n)
    ]


@pytest.mark.parametrize("n", [1, 2, 200])
def test_valid_tree_for_any_length(parser: SentenceRSTParser, n: int) -> None:
    tree = parser.parse(sentences(n))
    tree.validate()
    assert len(tree.units) == n and len(tree.nodes) == n - 1
    assert tree.producer == "trained-sentence-parser:gum-v2"


@settings(max_examples=25, deadline=None)
@given(
    texts=st.lists(st.text(min_size=0, max_size=40), min_size=1, max_size=40),
    cuts=st.lists(st.integers(min_value=1, max_value=39), max_size=6),
)
def test_random_inputs_give_valid_trees(parser: SentenceRSTParser, texts: list[str], cuts: list[int]) -> None:
    starts = sorted({0, *(c for c in cuts if c < len(texts))})
    tree = parser.parse(texts, paragraph_starts=starts)
    tree.validate()
    assert [u.text for u in tree.units] == texts
    for start in starts[1:]:  # paragraphs stay subtrees of the integrated tree
        assert any(n.split == start - 1 for n in tree.nodes)


def test_parse_document_returns_paragraph_and_document_trees(parser: SentenceRSTParser) -> None:
    result = parser.parse_document([sentences(3), sentences(1), sentences(4)])
    assert [len(t.units) for t in result.paragraph_trees] == [3, 1, 4]
    assert len(result.document_tree.units) == 3
    assert len(result.integrated().units) == 8


def test_empty_input_and_wrong_embedder_are_explained(parser: SentenceRSTParser) -> None:
    with pytest.raises(BadDocumentError):
        parser.parse([])
    wrong = SentenceRSTParser(parser.model, parser.meta, embed=lambda t: np.zeros((len(t), 8), np.float32))
    with pytest.raises(ConfigError):
        wrong.parse(["One sentence."])
