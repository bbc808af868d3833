"""The tolerant router-reply parser. Every reply here is hand-written (none comes from a model)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from backend.routing.router_reply import Behaviour, format_behaviours, parse_router_reply

VISIBLE = {"3", "4", "12"}
COLLAPSED = {"2", "7"}
KNOWN = {str(i) for i in range(15)}


def parse(reply: str, **kwargs):
    return parse_router_reply(reply, visible=VISIBLE, collapsed=COLLAPSED, known=KNOWN, **kwargs)


def kept(reply: str, **kwargs) -> list[tuple[str, str]]:
    return [(b.kind, b.node_id) for b in parse(reply, **kwargs).behaviours]


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ("[ANSWER] 3", [("answer", "3")]),
        ("[answer] 3\n[Expand] 7", [("answer", "3"), ("expand", "7")]),
        ("[ANSWER] 3, 4 and 12", [("answer", "3"), ("answer", "4"), ("answer", "12")]),
        ("[ANSWER] 12: In 2019 the 4 hives died", [("answer", "12")]),  # numbers in the text prefix
        ("Sure! Based on the tree, [ANSWER] 4 is the best match.", [("answer", "4")]),
        ("ANSWER: #3", [("answer", "3")]),
        ("<answer>4</answer> <expand>2</expand>", [("answer", "4"), ("expand", "2")]),
        ("[EXPAND] node 7", [("expand", "7")]),
        ("[ANSWER] p12", [("answer", "12")]),
        ("[ANSWER] 03", [("answer", "3")]),
        ("1 [ANSWER] 3 [EXPAND] 2", [("answer", "3"), ("expand", "2")]),
    ],
)
def test_accepted_forms(reply: str, expected: list[tuple[str, str]]) -> None:
    parsed = parse(reply)
    assert [(b.kind, b.node_id) for b in parsed.behaviours] == expected
    assert parsed.usable and not parsed.refused


def test_ids_on_the_next_line_are_not_taken() -> None:
    parsed = parse("[ANSWER] 3\n12: some node text copied back")
    assert kept("[ANSWER] 3\n12: some node text copied back") == [("answer", "3")]
    assert parsed.dropped == ()


@pytest.mark.parametrize(
    ("reply", "reason"),
    [
        ("[ANSWER] 99", "unknown id"),
        ("[ANSWER] 5", "not a visible paragraph"),
        ("[ANSWER] 7", "a heading cannot be an answer"),
        ("[EXPAND] 3", "not a collapsed heading"),
        ("[EXPAND] 0", "not a collapsed heading"),
        ("[ANSWER]", "[ANSWER] names no id"),
    ],
)
def test_invalid_ids_are_dropped_with_a_reason(reply: str, reason: str) -> None:
    parsed = parse(reply)
    assert parsed.behaviours == ()
    assert [d.reason for d in parsed.dropped] == [reason]
    assert not parsed.usable


def test_duplicates_are_dropped_and_recorded() -> None:
    parsed = parse("[ANSWER] 3\n[answer] 3\n[ANSWER] 3, 4")
    assert [b.node_id for b in parsed.behaviours] == ["3", "4"]
    assert [d.reason for d in parsed.dropped] == ["duplicate", "duplicate"]


@pytest.mark.parametrize(
    "reply", ["Cannot answer", "cannot answer.", "[REFUSE]", "I am unable to answer this.", "I can't answer"]
)
def test_refusals(reply: str) -> None:
    parsed = parse(reply)
    assert parsed.refused and parsed.usable and parsed.behaviours == ()


def test_refusal_next_to_valid_behaviours_is_ignored_and_recorded() -> None:
    parsed = parse("[ANSWER] 3\nOtherwise: Cannot answer")
    assert not parsed.refused
    assert kept("[ANSWER] 3\nOtherwise: Cannot answer") == [("answer", "3")]
    assert parsed.dropped[0].reason.startswith("refusal ignored")


def test_switches_drop_what_the_run_does_not_allow() -> None:
    parsed = parse("[EXPAND] 7", allow_expand=False)
    assert parsed.behaviours == () and parsed.dropped[0].reason == "expansion is switched off for this run"
    limited = parse(
        "[EXPAND] 7", allow_expand=False, expand_off_reason="expansion limit reached (3 iterations)"
    )
    assert limited.dropped[0].reason.startswith("expansion limit")
    no_refusal = parse("Cannot answer", allow_refuse=False)
    assert not no_refusal.refused and not no_refusal.usable
    assert no_refusal.dropped[0].reason == "refusal is switched off for this run"


@pytest.mark.parametrize(
    "reply",
    [
        "",
        "   ",
        "[ANSW",  # truncated mid-tag
        "[ANSWER",  # truncated before the id
        "The bridge is 1.2 km long and opened in May.",  # a base model continuing the text
        "Question: What did the repairs cost?\nTree:",
        "{'id': 3, 'tag': 'answer'}",  # JSON-ish, not our format
        "EXPAND",
    ],
)
def test_junk_is_unusable_and_recorded(reply: str) -> None:
    parsed = parse(reply)
    assert parsed.behaviours == () and not parsed.refused and not parsed.usable
    assert parsed.dropped  # something says why nothing was used


def test_format_round_trips_through_the_parser() -> None:
    behaviours = [Behaviour("answer", "3"), Behaviour("answer", "12"), Behaviour("expand", "7")]
    assert list(parse(format_behaviours(behaviours)).behaviours) == behaviours
    assert parse(format_behaviours([], refused=True)).refused


IDS = st.sampled_from(sorted(KNOWN | {"99", "123"}))
KINDS = st.sampled_from(["answer", "expand"])


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=300))
def test_any_text_parses_without_error_and_keeps_only_offered_ids(reply: str) -> None:
    parsed = parse(reply)
    for behaviour in parsed.behaviours:
        assert behaviour.node_id in (VISIBLE if behaviour.kind == "answer" else COLLAPSED)
    assert len(set(parsed.behaviours)) == len(parsed.behaviours)
    assert not (parsed.refused and parsed.behaviours)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.tuples(KINDS, IDS), max_size=8),
    st.sampled_from(["", "Here you go:\n", "Sure. "]),
    st.sampled_from(["", "\nHope this helps!", " (done)"]),
    st.sampled_from([str.upper, str.lower, str.title]),
)
def test_wrapped_well_formed_replies_keep_exactly_the_valid_unique_behaviours(
    items: list[tuple[str, str]], before: str, after: str, case
) -> None:
    reply = before + "\n".join(case(f"[{kind}]") + f" {node}" for kind, node in items) + after
    parsed = parse(reply)
    expected: list[tuple[str, str]] = []
    for kind, node in items:
        offered = VISIBLE if kind == "answer" else COLLAPSED
        if node in offered and (kind, node) not in expected:
            expected.append((kind, node))
    assert [(b.kind, b.node_id) for b in parsed.behaviours] == expected
    assert len(parsed.behaviours) + len(parsed.dropped) == len(items) or not items
