from itertools import pairwise

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from backend.ingest.chunking import chunk_sentences, pack
from backend.ingest.document import Sentence


def test_greedy_packing_respects_the_budget():
    assert pack([3, 3, 3, 3], [0, 0, 0, 0], max_tokens=6) == [range(0, 2), range(2, 4)]
    assert pack([3, 3, 3], [0, 0, 0], max_tokens=7) == [range(0, 2), range(2, 3)]


def test_oversized_sentence_is_its_own_chunk():
    assert pack([2, 50, 2, 2], [0, 0, 0, 0], max_tokens=10) == [range(0, 1), range(1, 2), range(2, 4)]


def test_sections_are_never_crossed():
    assert pack([1, 1, 1, 1], [0, 0, 1, 1], max_tokens=100) == [range(0, 2), range(2, 4)]


def test_invalid_arguments():
    with pytest.raises(ValueError):
        pack([1], [0], max_tokens=0)
    with pytest.raises(ValueError):
        pack([1, 2], [0], max_tokens=5)
    assert pack([], [], max_tokens=5) == []


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 40), st.integers(0, 3)), max_size=80).map(
        lambda pairs: ([c for c, _ in pairs], sorted(s for _, s in pairs))
    ),
    st.integers(1, 60),
)
def test_property_groups_partition_in_order(counts_sections, max_tokens):
    counts, sections = counts_sections
    groups = pack(counts, sections, max_tokens)
    assert [i for g in groups for i in g] == list(range(len(counts)))
    for group in groups:
        assert len(group) > 0
        assert len({sections[i] for i in group}) == 1
        total = sum(counts[i] for i in group)
        assert total <= max_tokens or len(group) == 1
    for left, right in pairwise(groups):  # greedy: the next sentence did not fit
        if sections[left[-1]] == sections[right[0]]:
            assert sum(counts[i] for i in left) + counts[right[0]] > max_tokens


def test_chunk_sentences_counts_once_and_sets_pages():
    text = "aa bb. cc dd ee. ff."
    sentences = [
        Sentence("d:s0", "d:p0", 0, 0, 6, page=2),
        Sentence("d:s1", "d:p0", 1, 7, 16, page=1),
        Sentence("d:s2", "d:p1", 2, 17, 20, page=None),
    ]
    calls = []

    def counter(texts):
        calls.append(list(texts))
        return [len(t.split()) for t in texts]

    chunks = chunk_sentences(sentences, text, [0, 0, 0], doc_id="d", count_tokens_many=counter, max_tokens=5)
    assert calls == [["aa bb.", "cc dd ee.", "ff."]]
    assert [(c.id, c.start, c.end, c.sentence_ids, c.token_count, c.pages) for c in chunks] == [
        ("d:c0", 0, 16, ("d:s0", "d:s1"), 5, (1, 2)),
        ("d:c1", 17, 20, ("d:s2",), 1, ()),
    ]
