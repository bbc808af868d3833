from backend.llm.base import ChatMessage
from backend.llm.transcript import TURN_STOP, render_transcript, with_turn_stop


def test_system_then_open_answer():
    prompt = render_transcript(
        [ChatMessage("system", "Answer from the context."), ChatMessage("user", " What is RST? ")]
    )
    assert prompt == "Answer from the context.\n\nQuestion: What is RST?\nAnswer:"


def test_history_turns_alternate_and_systems_join_into_the_preamble():
    prompt = render_transcript(
        [
            ChatMessage("system", "Be brief."),
            ChatMessage("user", "One?"),
            ChatMessage("assistant", "1."),
            ChatMessage("system", "Use digits."),
            ChatMessage("user", "Two?"),
        ]
    )
    assert prompt == "Be brief.\n\nUse digits.\n\nQuestion: One?\nAnswer: 1.\nQuestion: Two?\nAnswer:"


def test_final_assistant_message_is_a_prefix_to_continue():
    prompt = render_transcript(
        [ChatMessage("user", "Name a colour."), ChatMessage("assistant", "The colour")]
    )
    assert prompt.endswith("Answer: The colour")


def test_no_system_message_has_no_blank_preamble():
    assert render_transcript([ChatMessage("user", "Hi")]) == "Question: Hi\nAnswer:"


def test_turn_stop_is_added_once():
    assert with_turn_stop(None) == [TURN_STOP]
    assert with_turn_stop(["\n\n"]) == ["\n\n", TURN_STOP]
    assert with_turn_stop([TURN_STOP]) == [TURN_STOP]
