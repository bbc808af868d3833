"""The Library's pre-parse panel through AppTest: the job runs in the background, the page reads it.

A stand-in studio (tests/fakes/gated_studio.py) parses one chunk per permit the test releases, so
the page is checked at known counts; waits poll the job with a deadline, never a fixed sleep.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from backend.background_jobs import Job
from backend.pipelines.disco_stages import preparse_job, start_preparse
from tests.fakes.gated_studio import GatedStudio, gated_studio

DEADLINE_S = 20.0
NAMES = {"buses": "buses.txt"}


def _page(studio: object, names: dict[str, str]) -> None:
    """The script AppTest runs: it sees none of this module's imports, so its hints are builtins."""
    from app.preparse_panel import preparse_panel

    preparse_panel(studio, names)


def wait_until(predicate: Callable[[], bool]) -> None:
    end = time.monotonic() + DEADLINE_S
    while not predicate():
        if time.monotonic() > end:
            pytest.fail("the job did not get there before the deadline")
        time.sleep(0.01)


@pytest.fixture
def studio(tmp_path: Path) -> GatedStudio:
    return gated_studio(tmp_path / "data")


def _job(studio: GatedStudio) -> Job:
    job = preparse_job(studio.settings, studio.llm, "buses")
    assert job is not None
    return job


def _start(studio: GatedStudio) -> AppTest:
    at = AppTest.from_function(_page, args=(studio, NAMES), default_timeout=DEADLINE_S).run()
    assert not at.exception and not at.progress, "nothing runs before the button"
    at.button(key="library_preparse").click().run()
    assert not at.exception
    return at


def test_progress_counts_update_then_the_result_is_shown(studio: GatedStudio) -> None:
    at = _start(studio)
    assert at.progress, "the bar shows at once"
    wait_until(lambda: _job(studio).status().total == 5)
    at.run()
    assert "buses\\.txt: parsing chunk trees, 0 / 5 chunks" in at.progress[0].text
    assert at.button(key="library_preparse").disabled, "no second job while one runs"
    studio.llm.let_through(2)
    wait_until(lambda: _job(studio).status().done == 2)
    at.run()
    assert "2 / 5 chunks" in at.progress[0].text and at.progress[0].value == 40
    studio.llm.let_through(3)
    assert _job(studio).wait(DEADLINE_S)
    at.run()
    assert not at.exception and not at.progress
    assert [s.value for s in at.success] == [
        "buses\\.txt: 5 trees parsed, 0 already cached, 0 from the fallback parser, "
        f"in {_job(studio).status().result.seconds:.1f} s."
    ]


def test_cancel_stops_the_job_and_starting_again_resumes_from_the_cache(studio: GatedStudio) -> None:
    at = _start(studio)
    studio.llm.let_through(1)
    wait_until(lambda: _job(studio).status().done == 1)
    at.button(key="library_preparse_cancel").click().run()
    assert any("Cancelling" in c.value for c in at.caption)
    studio.llm.let_through(1)  # the chunk under way finishes, then the job stops
    assert _job(studio).wait(DEADLINE_S)
    at.run()
    assert [i.value for i in at.info] == [
        "buses\\.txt: pre-parsing cancelled after 2 / 5 chunks. "
        "The trees parsed so far are cached: start again to go on from there."
    ]
    at.button(key="library_preparse").click().run()
    studio.llm.let_through(3)
    assert _job(studio).wait(DEADLINE_S)
    at.run()
    assert any("3 trees parsed, 2 already cached" in s.value for s in at.success)


def test_a_failure_is_shown_with_the_count_reached(studio: GatedStudio) -> None:
    studio.llm.fail_on_call = 2
    at = _start(studio)
    studio.llm.let_through(2)
    assert _job(studio).wait(DEADLINE_S)
    at.run()
    assert not at.exception and not at.success
    (error,) = at.error
    assert "pre-parsing failed after 1 / 5 chunks" in error.value
    assert "Unexpected RuntimeError: the parser model crashed" in error.value


def test_a_page_opened_later_preselects_the_running_job_and_shows_its_progress(studio: GatedStudio) -> None:
    job = start_preparse(studio.settings, studio.llm, studio.library.get("buses"))
    studio.llm.let_through(1)
    wait_until(lambda: job.status().done == 1)
    names = {"other": "other.txt", **NAMES}
    at = AppTest.from_function(_page, args=(studio, names), default_timeout=DEADLINE_S).run()
    assert not at.exception
    assert at.selectbox(key="library_preparse_pick").value == "buses"
    assert "1 / 5 chunks" in at.progress[0].text
    studio.llm.let_through(4)
    assert job.wait(DEADLINE_S)
