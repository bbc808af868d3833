import re
import time

from hypothesis import given, settings
from hypothesis import strategies as st

from backend.ingest.segment import MAX_SENTENCE_WORDS, sentence_spans


def non_space(text: str) -> str:
    return re.sub(r"\s+", "", text)


def check_spans(text: str, spans: list[tuple[int, int]], max_words: int = MAX_SENTENCE_WORDS) -> None:
    previous_end = 0
    for start, end in spans:
        assert previous_end <= start < end <= len(text)
        piece = text[start:end]
        assert piece == piece.strip()
        assert len(piece.split()) <= max_words
        assert not text[previous_end:start].strip(), "a gap between sentences holds text"
        previous_end = end
    assert not text[previous_end:].strip()
    assert "".join(non_space(text[s:e]) for s, e in spans) == non_space(text)


def test_offsets_match_sentences():
    text = "  Dr. Smith arrived at 3 p.m. on Monday.  Was he late?\nNo!  He was early. "
    spans = sentence_spans(text)
    assert [text[s:e] for s, e in spans] == [
        "Dr. Smith arrived at 3 p.m. on Monday.",
        "Was he late?",
        "No!",
        "He was early.",
    ]
    check_spans(text, spans)


def test_unicode_and_quotes():
    text = "“Électricité,” she said. Zoë’s café opened in 2021. Prices rose 5%."
    spans = sentence_spans(text)
    assert len(spans) == 3
    check_spans(text, spans)


def test_run_on_text_is_cut_at_word_boundaries():
    text = " ".join(f"word{i}" for i in range(1000))
    spans = sentence_spans(text)
    check_spans(text, spans)
    assert len(spans) == 9  # ceil(1000 / 120) even pieces of 112 words or fewer
    assert all(len(text[s:e].split()) >= 100 for s, e in spans)


def test_unbalanced_bracket_does_not_swallow_the_paragraph():
    sentence = "The encoder learns contextual representations from every token in the input. "
    text = "(2) Next sentence prediction is the second task. " + sentence * 20
    spans = sentence_spans(text)
    check_spans(text, spans)
    assert len(spans) == 21  # real sentence boundaries, not word-count cuts


def test_custom_cap_and_blank_input():
    text = "one two three four five six seven"
    assert [text[s:e] for s, e in sentence_spans(text, max_words=3)] == [
        "one two",
        "three four",
        "five six seven",
    ]
    assert sentence_spans("   \n ") == []
    assert sentence_spans("") == []


_WORDS = st.sampled_from(
    [
        "the",
        "Dr.",
        "U.S.",
        "e.g.",
        "3.5",
        "end.",
        "why?",
        "wow!",
        "(see",
        "Fig.",
        "2)",
        "“quote",
        "it.”",
        "café",
        "—",
        "...",
        "'",
        '"',
        "Zoë",
        "a-b",
        "x",
        "\t",
        "\n",
        "\n\n",
        "  ",
    ]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_WORDS, max_size=300), st.integers(min_value=1, max_value=40))
def test_property_spans_are_ordered_and_lose_nothing(words, cap):
    text = " ".join(words)
    check_spans(text, sentence_spans(text, max_words=cap), max_words=cap)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=400))
def test_property_any_unicode_text(text):
    check_spans(text, sentence_spans(text))


def test_fifty_thousand_words_segment_quickly():
    sentences = [
        "Dr. Okafor measured 3.5 kg of soil on 12 May, although the scale (see Fig. 2) was old.",
        "Because the rain stopped, the team moved on; however, the river stayed high!",
        "Was the model wrong, or was the data “noisy” as the U.S. report claimed?",
    ]
    text = " ".join(sentences * 1700)  # about 50,000 words in one paragraph
    assert len(text.split()) >= 50_000
    started = time.perf_counter()
    spans = sentence_spans(text)
    assert time.perf_counter() - started < 5.0
    check_spans(text, spans)
    assert len(spans) >= 3 * 1700 * 0.9
