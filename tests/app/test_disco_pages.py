"""Disco-RAG in the app through AppTest, on the embedded defaults: the Ask view and Library pre-parse."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from tests.conftest import REPO_ROOT

pytestmark = pytest.mark.integration
MAIN = str(REPO_ROOT / "app" / "main.py")


@pytest.fixture
def app_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("STUDIO_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("STUDIO_CONFIG", str(tmp_path / "studio.toml"))
    monkeypatch.setenv("STUDIO_LLM_MAX_TOKENS", "40")
    monkeypatch.setenv("STUDIO_TOP_K", "3")
    return tmp_path


def _preparse_result(at: AppTest, timeout: float = 180.0) -> str:
    """Rerun the page, as its polling fragment would, until the background job's result shows."""
    end = time.monotonic() + timeout
    while not (done := [s.value for s in at.success if "trees parsed" in s.value]):
        assert not at.exception and not at.error
        assert time.monotonic() < end, "the pre-parse job did not finish in time"
        time.sleep(0.2)
        at.run()
    return done[0]


def test_library_preparses_a_documents_trees_with_progress(app_env: Path) -> None:
    at = AppTest.from_file(MAIN, default_timeout=180).run()
    at.button(key="library_samples").click().run()
    at.button(key="library_preparse").click().run()
    assert "0 already cached" in _preparse_result(at)
    at.button(key="library_preparse").click().run()
    assert "0 trees parsed" in _preparse_result(at), "the second run finds every tree cached"


def test_ask_with_disco_rag_shows_trees_graph_plan_and_costs(app_env: Path) -> None:
    at = AppTest.from_file(MAIN, default_timeout=240).run()
    at.button(key="library_samples").click().run()
    at.switch_page("views/ask.py").run()
    at.selectbox(key="ask_method").set_value("disco_rag").run()
    at.text_input(key="ask_question").input("How many buses did the city buy?")
    at.button(key="ask_submit").click().run()
    assert not at.exception and not at.error
    assert [t.label for t in at.tabs] == ["RST trees", "Rhetorical graph", "Plan"]
    captions = " ".join(c.value for c in at.caption)
    assert "Structure producer: Trained producers" in captions
    assert "Graph built by `relation-classifier:gum-v1`" in captions
    assert "Plan written by `embedded:gemma-3-270m (base)`" in captions
    costs = at.dataframe[-1].value
    assert list(costs["stage"]) == ["retrieve", "parse trees", "graph", "plan", "generate"]
    assert "cache hits" in costs.columns


def test_ask_with_the_combined_pipeline_shows_every_stage_in_order(app_env: Path) -> None:
    at = AppTest.from_file(MAIN, default_timeout=240).run()
    at.button(key="library_samples").click().run()
    at.switch_page("views/ask.py").run()
    at.selectbox(key="ask_method").set_value("combined").run()
    at.text_input(key="ask_question").input("How much does winter cold reduce the bus range?")
    at.button(key="ask_submit").click().run()
    assert not at.exception and not at.error
    assert [t.label for t in at.tabs] == [
        "Tree retrieval",
        "Routing trajectory",
        "RST trees",
        "Rhetorical graph",
        "Plan",
    ]
    costs = at.dataframe[-1].value
    assert list(costs["stage"])[:3] == ["build trees", "retrieve", "route"]
