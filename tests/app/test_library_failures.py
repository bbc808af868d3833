"""Library page actions that fail unexpectedly (disk, Chroma): a named message, no traceback."""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from backend.indexer import Indexer
from backend.library import Library
from tests.conftest import REPO_ROOT

pytestmark = pytest.mark.integration
MAIN = str(REPO_ROOT / "app" / "main.py")
LOG_HINT = "details are in the server log"


@pytest.fixture
def app_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("STUDIO_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("STUDIO_CONFIG", str(tmp_path / "studio.toml"))
    return tmp_path


def _errors(at: AppTest) -> list[str]:
    return [e.value.replace("\\", "") for e in at.error]  # drop markdown escapes


def _raise_oserror_when(monkeypatch: pytest.MonkeyPatch, method: str, condition: Callable[..., bool]) -> None:
    """Make `Indexer.<method>` fail like a full disk for the calls whose arguments match."""
    original = getattr(Indexer, method)

    def failing(self: Indexer, *args: object, **kwargs: object) -> object:
        if condition(*args):
            raise OSError("No space left on device")
        return original(self, *args, **kwargs)

    monkeypatch.setattr(Indexer, method, failing)


def test_a_failing_file_is_named_and_the_others_still_index(
    app_env: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    _raise_oserror_when(monkeypatch, "index_file", lambda data, name: name == "beehive-losses.html")
    at = AppTest.from_file(MAIN, default_timeout=120).run()
    with caplog.at_level(logging.ERROR, logger="app.views.library"):
        at.button(key="library_samples").click().run()
    assert not at.exception
    assert _errors(at) == [f"Indexing 'beehive-losses.html' failed (OSError); {LOG_HINT}."]
    assert len(at.success) == 1 and at.success[0].value.startswith("electric-buses-report.md: indexed")
    assert at.dataframe[0].value["name"].tolist() == ["electric-buses-report.md"]
    [record] = [r for r in caplog.records if r.name == "app.views.library"]
    assert record.exc_info and record.exc_info[0] is OSError, "the traceback goes to the server log"

    _raise_oserror_when(monkeypatch, "delete", lambda doc_id: True)
    at.checkbox(key="library_delete_confirm").check().run()
    at.button(key="library_delete").click().run()
    assert not at.exception
    assert _errors(at) == [f"Deleting 'electric-buses-report.md' failed (OSError); {LOG_HINT}."]
    assert at.dataframe[0].value.shape[0] == 1


def test_a_failing_reindex_is_named_and_the_others_are_rebuilt(
    app_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    AppTest.from_file(MAIN, default_timeout=120).run().button(key="library_samples").click().run()
    ids = {s.name: s.id for s in Library(app_env / "data").summaries()}
    monkeypatch.setenv("STUDIO_CHUNK_TOKENS", "128")  # both documents were built with 256: stale
    _raise_oserror_when(monkeypatch, "reindex", lambda doc_id: doc_id == ids["beehive-losses.html"])
    at = AppTest.from_file(MAIN, default_timeout=120).run()
    at.button(key="library_reindex").click().run()
    assert not at.exception
    assert _errors(at) == [f"Re-indexing 'beehive-losses.html' failed (OSError); {LOG_HINT}."]
    assert at.success[0].value == "Re-indexed 1 documents with the current settings."
    table = at.dataframe[0].value.set_index("name")["index"].to_dict()
    assert table == {"beehive-losses.html": "needs re-indexing", "electric-buses-report.md": "current"}
