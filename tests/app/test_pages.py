"""The Streamlit pages through AppTest, on the real embedded defaults."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from backend.llm import capability
from backend.llm.embedded import EMBEDDED_LABEL
from tests.conftest import REPO_ROOT
from tests.fakes.scripted_llm import ScriptedLLM
from tests.unit.llm.test_capability import obedient

pytestmark = pytest.mark.integration
MAIN = str(REPO_ROOT / "app" / "main.py")


@pytest.fixture
def app_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("STUDIO_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("STUDIO_CONFIG", str(tmp_path / "studio.toml"))
    monkeypatch.setenv("STUDIO_LLM_MAX_TOKENS", "40")
    return tmp_path


def _texts(at: AppTest) -> str:
    parts = [
        e.value
        for kind in ("markdown", "info", "success", "warning", "error", "caption")
        for e in getattr(at, kind)
    ]
    return "\n".join(str(p) for p in parts).replace("\\", "")  # drop markdown escapes


def test_library_starts_empty_then_indexes_samples(app_env: Path) -> None:
    at = AppTest.from_file(MAIN, default_timeout=120).run()
    assert not at.exception
    assert at.title[0].value == "Library"
    assert "library is empty" in _texts(at)
    assert "embedded:gemma-3-270m" in _texts(at), "the sidebar names the active model"
    at.button(key="library_samples").click().run()
    assert not at.exception and not at.error
    assert len(at.success) == 2 and "indexed" in at.success[0].value
    assert at.dataframe[0].value.shape[0] == 2
    at.button(key="library_samples").click().run()
    assert len(at.info) >= 2 and "already in the library" in _texts(at)


def test_ask_page_gives_a_cited_answer_view(app_env: Path) -> None:
    at = AppTest.from_file(MAIN, default_timeout=180).run()
    at.button(key="library_samples").click().run()
    at.switch_page("views/ask.py").run()
    assert at.title[0].value == "Ask"
    at.selectbox(key="ask_method").set_value("standard_rag").run()
    at.text_input(key="ask_question").input("How many buses did the city buy?")
    at.button(key="ask_submit").click().run()
    assert not at.exception and not at.error
    texts = _texts(at)
    assert "Passages given to the model** (5)" in texts
    assert len([e for e in at.expander if e.label.startswith("[")]) == 5
    assert "produced by `embedded:" in texts


def test_ask_page_answers_extractively_by_default_with_the_base_model(app_env: Path) -> None:
    at = AppTest.from_file(MAIN, default_timeout=180).run()
    at.button(key="library_samples").click().run()
    at.switch_page("views/ask.py").run()
    assert at.selectbox(key="ask_method").value == "extractive"
    assert f"`{EMBEDDED_LABEL}` is a base model; answers are extractive by default" in _texts(at)
    at.text_input(key="ask_question").input("How many buses did the city buy?")
    at.button(key="ask_submit").click().run()
    assert not at.exception and not at.error
    texts = _texts(at)
    assert "Extractive answer: sentences selected from the documents, no model wrote this." in texts
    assert "· _selected from the document_" in texts and "Sources cited" in texts
    assert "produced by `extractive:" in texts


def test_ask_page_keeps_the_method_the_user_picked(app_env: Path) -> None:
    at = AppTest.from_file(MAIN, default_timeout=180).run()
    at.button(key="library_samples").click().run()
    at.switch_page("views/ask.py").run()
    at.selectbox(key="ask_method").set_value("standard_rag").run()
    assert "extractive by default" not in _texts(at)
    at.switch_page("views/library.py").run()
    at.switch_page("views/ask.py").run()
    assert at.selectbox(key="ask_method").value == "standard_rag"


def test_ask_page_defaults_to_standard_rag_for_a_capable_model(
    app_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    passing = capability.probe(ScriptedLLM(obedient, label=EMBEDDED_LABEL))
    monkeypatch.setitem(capability._REPORTS, EMBEDDED_LABEL, passing)  # as after a passing re-check
    at = AppTest.from_file(MAIN, default_timeout=180).run()
    at.button(key="library_samples").click().run()
    at.switch_page("views/ask.py").run()
    assert not at.exception
    assert at.selectbox(key="ask_method").value == "standard_rag"
    assert "extractive by default" not in _texts(at)


def test_ask_page_explains_an_empty_library(app_env: Path) -> None:
    at = AppTest.from_file(MAIN, default_timeout=60).run()
    at.switch_page("views/ask.py").run()
    assert "library is empty" in _texts(at)


def test_unreachable_chroma_server_is_explained(app_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CHROMA_HOST", "127.0.0.1")
    monkeypatch.setenv("CHROMA_PORT", "9")
    at = AppTest.from_file(MAIN, default_timeout=60).run()
    assert not at.exception
    assert at.error and "did not answer" in at.error[0].value


def test_unreachable_ollama_is_explained_on_ask(app_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    at = AppTest.from_file(MAIN, default_timeout=120).run()
    at.button(key="library_samples").click().run()
    monkeypatch.setenv("STUDIO_LLM_BACKEND", "ollama")
    monkeypatch.setenv("STUDIO_LLM_MODEL", "llama3.2")
    monkeypatch.setenv("OLLAMA_HOST", "http://127.0.0.1:9")
    monkeypatch.setenv("STUDIO_LLM_MAX_RETRIES", "0")
    at = AppTest.from_file(MAIN, default_timeout=120).run()
    assert "Ollama at http://127.0.0.1:9 did not answer (connection refused)" in _texts(at)
    at.switch_page("views/ask.py").run()
    assert at.selectbox(key="ask_method").value == "extractive", "an unanswered probe is not capable"
    at.selectbox(key="ask_method").set_value("standard_rag").run()
    at.text_input(key="ask_question").input("How many buses?")
    at.button(key="ask_submit").click().run()
    assert not at.exception
    assert at.error and "127.0.0.1:9" in at.error[0].value


def test_delete_removes_a_document_and_says_so(app_env: Path) -> None:
    at = AppTest.from_file(MAIN, default_timeout=120).run()
    at.button(key="library_samples").click().run()
    assert at.dataframe[0].value.shape[0] == 2
    at.checkbox(key="library_delete_confirm").check().run()
    at.button(key="library_delete").click().run()
    assert not at.exception
    assert "Deleted '" in at.success[0].value
    assert at.dataframe[0].value.shape[0] == 1


def test_a_broken_embedder_setting_is_explained_and_fixable(
    app_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("STUDIO_EMBEDDING_MODEL", str(app_env / "no-such-model"))
    at = AppTest.from_file(MAIN, default_timeout=60).run()
    assert not at.exception
    assert any("Cannot load the embedding model" in e.value for e in at.error)
    assert at.button(key="sidebar_apply"), "the settings form stays reachable to fix it"
