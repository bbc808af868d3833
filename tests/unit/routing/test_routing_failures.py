"""The routing loop when the router's model call fails: earlier steps stay, nothing is invented.

`ScriptedLLM` (tests/fakes) replies with text written here until the test makes it raise the
studio's own error types, as a client does when its server stops answering.
"""

from __future__ import annotations

import json

from backend.errors import LLMRequestError, ServerUnreachableError
from backend.ingest.loaded import Block
from backend.routing.route import RouteOptions, route_documents, route_tree
from backend.routing.router import LLMRouter
from backend.routing.structure_builders import tree_from_document
from backend.routing.trajectory import DocumentRoute
from tests.fakes.scripted_llm import ScriptedLLM
from tests.unit.routing.helpers import doc_from_blocks, hand_tree


def failing_after(*replies: str) -> ScriptedLLM:
    """Gives `replies` in turn, then fails every call as an unreachable server does."""
    queue = list(replies)

    def reply(_prompt: str) -> str:
        if queue:
            return queue.pop(0)
        raise ServerUnreachableError("The server at http://127.0.0.1:9 did not answer.", "Start it.")

    return ScriptedLLM(reply)


def test_a_failed_call_stops_the_route_and_keeps_the_steps_before_it() -> None:
    route = route_tree("q?", hand_tree(), ["2"], LLMRouter(failing_after("[EXPAND] 9")), RouteOptions())
    assert route.stop_reason == "call failed" and len(route.steps) == 2
    first, failed = route.steps
    assert first.usable and first.lit_by_expand == ["10"] and not first.error
    assert failed.visible == ["10"], "the view it was shown is kept"
    assert failed.error == "[E200] The server at http://127.0.0.1:9 did not answer. Start it."
    assert (failed.raw_reply, failed.behaviours, failed.dropped, failed.usable) == ("", [], [], False)
    assert route.answered == [] and route.unusable_replies == 0
    again = DocumentRoute.from_dict(json.loads(json.dumps(route.to_dict())))
    assert again.steps[1].error == failed.error and again.stop_reason == "call failed"


def test_an_error_text_is_never_read_as_a_reply() -> None:
    """A message such as 'did not answer 3 times' holds words the reply parser accepts as tags."""

    def reply(_prompt: str) -> str:
        raise LLMRequestError("Ollama did not answer 3 times; expand 9 was not tried.", "Retry.")

    route = route_tree("q?", hand_tree(), ["2"], LLMRouter(ScriptedLLM(reply)), RouteOptions())
    assert route.steps[0].behaviours == [] and route.steps[0].lit_by_expand == []
    assert route.stop_reason == "call failed"


def test_after_a_failure_later_documents_are_not_asked_and_read_their_retrieved_passages(
    make_passage,
) -> None:
    doc_a = doc_from_blocks([Block("heading", "A", 2), Block("paragraph", "Alpha fact.")], title="TA")
    doc_b = doc_from_blocks([Block("heading", "B", 2), Block("paragraph", "Beta fact.")], title="TB")
    doc_c = doc_from_blocks([Block("heading", "C", 2), Block("paragraph", "Gamma fact.")], title="TC")
    doc_b.id, doc_c.id = "e", "f"
    docs = {"d": doc_a, "e": doc_b, "f": doc_c}
    passages = [
        make_passage("d:c0", "Alpha fact.", doc_a.paragraphs[0].start, doc_a.paragraphs[0].end),
        make_passage("e:c0", "Beta fact.", doc_b.paragraphs[0].start, doc_b.paragraphs[0].end, doc_id="e"),
        make_passage("f:c0", "Gamma fact.", doc_c.paragraphs[0].start, doc_c.paragraphs[0].end, doc_id="f"),
    ]
    llm = failing_after("[ANSWER] 2")
    result = route_documents(
        "q?",
        passages,
        documents=docs.__getitem__,
        tree_for=tree_from_document,
        router=LLMRouter(llm),
        options=RouteOptions(),
    )
    assert [r.stop_reason for r in result.routes] == ["answered", "call failed", "call failed"]
    assert [len(r.steps) for r in result.routes] == [1, 1, 0] and len(llm.prompts) == 2
    assert result.failure.startswith("[E200] The server at http://127.0.0.1:9 did not answer.")
    assert [p.chunk_id for p in result.passages] == [doc_a.paragraphs[0].id, "e:c0", "f:c0"]
    assert result.routes[2].initially_lit == ["2"]
