"""Chat messages rendered as a plain transcript, for base models that have no chat template.

A base model only continues text, so a conversation becomes a document it has seen many of:
the system text as a preamble, then "Question:" / "Answer:" turns, ending with an open
"Answer:". `TURN_STOP` stops the model before it invents the next question.
"""

from __future__ import annotations

from collections.abc import Sequence

from backend.llm.base import ChatMessage

USER_PREFIX = "Question:"
ASSISTANT_PREFIX = "Answer:"
TURN_STOP = f"\n{USER_PREFIX}"


def render_transcript(messages: Sequence[ChatMessage]) -> str:
    """The prompt a base model should continue to answer the last user turn.

    System messages join into a preamble wherever they appear. A final assistant message is
    left open (no newline), so its text is a prefix the model continues.
    """
    preamble = "\n\n".join(m.content.strip() for m in messages if m.role == "system" and m.content.strip())
    turns = [m for m in messages if m.role != "system"]
    lines = [preamble, ""] if preamble else []
    for message in turns:
        prefix = USER_PREFIX if message.role == "user" else ASSISTANT_PREFIX
        lines.append(f"{prefix} {message.content.strip()}".rstrip())
    if turns and turns[-1].role == "assistant":
        return "\n".join(lines)
    lines.append(ASSISTANT_PREFIX)
    return "\n".join(lines)


def with_turn_stop(stop: Sequence[str] | None) -> list[str]:
    """The caller's stop strings plus the one that ends the answer turn."""
    stops = list(stop or [])
    return stops if TURN_STOP in stops else [*stops, TURN_STOP]
