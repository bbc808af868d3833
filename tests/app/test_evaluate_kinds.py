"""The Evaluate page's retrieval, RST and ASQA kinds through AppTest, on small slices of the real data."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from tests.conftest import ASQA_FIXTURE, REPO_ROOT, SHARED_DATA

pytestmark = pytest.mark.integration
MAIN = str(REPO_ROOT / "app" / "main.py")
QASPER = SHARED_DATA / "qasper" / "qasper-dev-v0.3.json"
GUM = SHARED_DATA / "gum"


@pytest.fixture
def app_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("STUDIO_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("STUDIO_CONFIG", str(tmp_path / "studio.toml"))
    monkeypatch.setenv("STUDIO_LLM_MAX_TOKENS", "30")
    return tmp_path


def _evaluate_page(kind: str) -> AppTest:
    at = AppTest.from_file(MAIN, default_timeout=300).run()
    at.switch_page("views/evaluate.py").run()
    at.radio(key="evaluate_kind").set_value(kind).run()
    assert not at.exception
    return at


def _progress_text(at: AppTest) -> str:
    return at.get("progress")[0].proto.text


@pytest.mark.skipif(not QASPER.exists(), reason="../shared/data/qasper is not beside the checkout")
def test_retrieval_kind_scores_one_paper_at_one_budget(app_env: Path) -> None:
    at = _evaluate_page("retrieval")
    at.multiselect(key="evaluate_retrieval_methods").set_value(["flatten_chunk", "disretrieval"])
    at.multiselect(key="evaluate_retrieval_budgets").set_value([200])
    at.number_input(key="evaluate_retrieval_papers").set_value(1)
    at.button(key="evaluate_retrieval_submit").click().run()
    assert not at.exception and not at.error
    done = _progress_text(at)
    assert done.endswith(" rows") and done.split(" of ")[0] == done.split(" of ")[1].split()[0]
    summary = at.dataframe[0].value
    assert list(summary["method"]) == ["flatten_chunk", "disretrieval"] and set(summary["budget"]) == {200}
    assert ((summary["f1"] >= 0) & (summary["f1"] <= 100)).all()
    assert len(at.get("plotly_chart")) == 1 and len(at.get("download_button")) == 3


@pytest.mark.skipif(not (GUM / "dev").is_dir(), reason="../shared/data/gum is not beside the checkout")
def test_rst_kind_scores_a_slice_of_gum_dev_and_plots_either_root_setting(app_env: Path) -> None:
    at = _evaluate_page("rst")
    at.text_input(key="evaluate_rst_gum").input(str(GUM))
    at.multiselect(key="evaluate_rst_parsers").set_value(["right_branching", "trained"])
    at.number_input(key="evaluate_rst_limit").set_value(2)
    at.button(key="evaluate_rst_submit").click().run()
    assert not at.exception and not at.error
    assert _progress_text(at) == "4 of 4 documents x parsers"
    summary = at.dataframe[0].value
    assert list(dict.fromkeys(summary["parser"])) == ["right_branching", "trained"]
    assert len(summary) == 2 * 4 and (summary["documents"] == 2).all()
    at.selectbox(key="evaluate_rst_root").set_value("excluded").run()
    assert not at.exception and len(at.get("plotly_chart")) == 1


def test_asqa_kind_refuses_the_base_model_then_runs_the_plumbing_when_allowed(app_env: Path) -> None:
    at = _evaluate_page("asqa")
    at.text_input(key="evaluate_asqa_dataset").input(str(ASQA_FIXTURE))
    at.multiselect(key="evaluate_asqa_methods").set_value(["extractive"])
    at.number_input(key="evaluate_asqa_questions").set_value(1)
    at.button(key="evaluate_asqa_submit").click().run()
    assert not at.exception
    assert "instruction-following model" in at.error[0].value and "allow a weak model" in at.error[0].value
    assert not at.get("plotly_chart"), "nothing ran"

    at.checkbox(key="evaluate_asqa_weak").check()
    at.button(key="evaluate_asqa_submit").click().run()
    assert not at.exception and not at.error
    summary = at.dataframe[0].value
    assert list(summary["method"]) == ["extractive"] and summary["questions"][0] == 1
    assert 0 < summary["rouge_l"][0] <= 100
    answers = at.dataframe[1].value
    assert list(answers["sample_id"]) == ["-100001"] and answers["answer"][0]
    assert len(at.get("plotly_chart")) == 1
