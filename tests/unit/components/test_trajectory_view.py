"""The trajectory viewer: node marks per step, escaping, and stepping through with the slider.

The trajectory is made by the real routing loop with a scripted fake LLM (hand-written replies).
"""

from __future__ import annotations

import json

from streamlit.testing.v1 import AppTest

from backend.routing.route import RouteOptions, route_tree
from backend.routing.router import LLMRouter
from backend.routing.structure_builders import tree_from_document
from backend.routing.trajectory import RoutingRecord
from components.trajectory_view import node_states, tree_html
from tests.fakes.scripted_llm import ScriptedLLM
from tests.unit.routing.helpers import hostile_report

DOC = hostile_report()


def routed():
    replies = ["[EXPAND] 3\nsome <i>prose</i>", "[ANSWER] 4\n[ANSWER] 99"]
    llm = ScriptedLLM(lambda _p: replies.pop(0))
    tree = tree_from_document(DOC)
    return route_tree("How does range change?", tree, ["2"], LLMRouter(llm), RouteOptions(), "report.md")


def test_states_per_step() -> None:
    route = routed()
    first, second = route.steps
    assert node_states(route, first) == {"0": "heading", "1": "opened", "2": "shown", "3": "expanding"}
    assert node_states(route, second) == {"0": "heading", "1": "collapsed", "3": "opened", "4": "answered"}


def test_html_marks_every_state_in_text_and_escapes_document_text() -> None:
    route = routed()
    html = tree_html(route, route.steps[0])
    assert "▸" not in html  # nothing collapsed at step 1
    assert "⤵ EXPAND" in html and "● shown" in html and "▾ open" in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html and "<script>" not in html
    assert "Costs &lt;b&gt;bold&lt;/b&gt;" in html
    later = tree_html(route, route.steps[1])
    assert "✔ ANSWERED" in later and "▸ collapsed" in later
    assert "Prices rose" not in later  # hidden content is not drawn


def _page(record_json: str) -> None:
    import json

    from backend.generation.answer import Answer
    from components.trajectory_view import render_trajectory

    render_trajectory(json.loads(record_json), Answer("rdr2", "q", "", [], [], "test"))


def test_the_slider_steps_through_the_route() -> None:
    record = RoutingRecord(
        "llm router (ollama:scripted)", "chosen in a test.", 3, True, True, True, [routed()]
    )
    at = AppTest.from_function(_page, args=(json.dumps(record.to_dict()),), default_timeout=30).run()
    assert not at.exception
    assert at.code[0].value.startswith("[EXPAND] 3")  # the raw reply, literally
    html = "\n".join(m.value for m in at.markdown)
    assert "⤵ EXPAND" in html
    at.select_slider[0].set_value("step 2").run()
    assert not at.exception
    html = "\n".join(m.value for m in at.markdown)
    assert "✔ ANSWERED" in html
    dropped = at.dataframe[-1].value
    assert list(dropped["reason"]) == ["unknown id"]
