"""The Compare and Evaluate pages through AppTest, on the real embedded defaults."""

from __future__ import annotations

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
    monkeypatch.setenv("STUDIO_LLM_MAX_TOKENS", "30")
    return tmp_path


def test_two_methods_side_by_side_with_overlap_and_exports(app_env: Path) -> None:
    at = AppTest.from_file(MAIN, default_timeout=240).run()
    at.button(key="library_samples").click().run()
    at.switch_page("views/compare.py").run()
    assert at.title[0].value == "Compare"
    at.multiselect(key="compare_methods").set_value(["standard_rag", "extractive"]).run()
    at.text_input(key="compare_question").input("How many electric buses did the city buy?")
    at.button(key="compare_submit").click().run()
    assert not at.exception and not at.error
    table = at.dataframe[0].value
    assert list(table["method"]) == ["Standard RAG", "Extractive (offline, no LLM)"]
    assert (table["passages"] > 0).all()
    assert len(at.get("plotly_chart")) == 1, "the evidence overlap heatmap"
    assert len(at.get("download_button")) == 4, "JSON and HTML for each answer"


def test_evaluate_page_runs_then_shows_scores(app_env: Path) -> None:
    from tests.integration.test_qa_eval import QASPER

    if not QASPER.exists():
        pytest.skip("../shared/data/qasper is not beside the checkout")
    at = AppTest.from_file(MAIN, default_timeout=240).run()
    at.switch_page("views/evaluate.py").run()
    at.number_input(key="evaluate_papers").set_value(1)
    at.number_input(key="evaluate_per_paper").set_value(1)
    at.text_input(key="evaluate_dataset").input(str(QASPER))
    at.button(key="evaluate_submit").click().run()
    assert not at.exception and not at.error
    summary = at.dataframe[0].value
    assert list(summary["method"]) == ["extractive"] and summary["questions"][0] == 1
    assert len(at.get("plotly_chart")) == 1
