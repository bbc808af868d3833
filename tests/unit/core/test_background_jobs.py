"""Background jobs: progress counts, one job per running key, cancel between steps, failures kept.

The work is a slow fake that takes one step per permit the test releases, so every count is read
at a known point; waits poll with a deadline instead of sleeping a fixed time.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

import pytest

from backend.background_jobs import JobRegistry, JobStatus
from backend.errors import MalformedOutputError
from backend.progress import ProgressFn

DEADLINE_S = 10.0


def wait_until(predicate: Callable[[], bool], timeout: float = DEADLINE_S) -> None:
    """Poll until `predicate` holds; fail the test at the deadline rather than hang."""
    end = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > end:
            pytest.fail("the condition did not hold before the deadline")
        time.sleep(0.01)


class SteppedWork:
    """Fake slow work: `steps` steps, each waiting for a permit; can fail at a given step."""

    def __init__(self, steps: int, fail_at: int | None = None, error: Exception | None = None) -> None:
        self.steps = steps
        self.fail_at = fail_at
        self.error = error or RuntimeError("disk on fire\nsecond line")
        self.gate = threading.Semaphore(0)
        self.calls = 0
        self.finished_steps = 0

    def __call__(self, progress: ProgressFn) -> str:
        self.calls += 1
        progress("step", 0, self.steps)
        for step in range(1, self.steps + 1):
            assert self.gate.acquire(timeout=DEADLINE_S), "the test never released this step"
            if step == self.fail_at:
                raise self.error
            self.finished_steps = step
            progress("step", step, self.steps)
        return "all done"


def test_progress_counts_then_the_result_and_the_thread_ends() -> None:
    jobs, work = JobRegistry(), SteppedWork(4)
    job = jobs.start(("k", "1"), work)
    wait_until(lambda: job.status().total == 4)
    work.gate.release(2)
    wait_until(lambda: job.status().done == 2)
    running = job.status()
    assert running.state == "running" and running.active and running.fraction == 0.5
    assert running.started_at is not None and running.ended_at is None
    work.gate.release(2)
    assert job.wait(DEADLINE_S), "the thread ends"
    done: JobStatus[str] = job.status()
    assert (done.state, done.done, done.total, done.result, done.error) == ("done", 4, 4, "all done", "")
    assert not done.active and done.ended_at >= done.started_at
    assert jobs.get(("k", "1")) is job, "an ended job stays readable"


def test_starting_a_running_key_returns_the_running_job() -> None:
    jobs, work, other = JobRegistry(), SteppedWork(1), SteppedWork(1)
    first = jobs.start(("doc", "producer"), work)
    assert jobs.start(("doc", "producer"), other) is first
    work.gate.release(1)
    assert first.wait(DEADLINE_S)
    assert work.calls == 1 and other.calls == 0, "the work ran once"
    other.gate.release(1)
    again = jobs.start(("doc", "producer"), other)
    assert again is not first, "an ended key starts afresh"
    assert again.wait(DEADLINE_S) and again.status().state == "done" and other.calls == 1


def test_cancel_stops_between_steps_and_keeps_the_counts() -> None:
    jobs, work = JobRegistry(), SteppedWork(5)
    job = jobs.start(("k",), work)
    work.gate.release(1)
    wait_until(lambda: job.status().done == 1)
    job.cancel()
    assert job.status().cancel_requested and job.status().active
    work.gate.release(1)  # the step under way finishes; the next progress call stops the work
    assert job.wait(DEADLINE_S)
    status = job.status()
    assert (status.state, status.done, status.total) == ("cancelled", 2, 5)
    assert work.finished_steps == 2 and status.ended_at is not None


def test_a_coded_studio_error_is_kept_as_written() -> None:
    error = MalformedOutputError("The reply lists no EDUs.", "Pick another model in Settings.")
    jobs, work = JobRegistry(), SteppedWork(3, fail_at=2, error=error)
    job = jobs.start(("k",), work)
    work.gate.release(3)
    assert job.wait(DEADLINE_S)
    status = job.status()
    assert status.state == "failed" and status.done == 1
    assert status.error == "[E500] The reply lists no EDUs. Pick another model in Settings."


def test_any_other_error_is_summarised_and_logged(caplog: pytest.LogCaptureFixture) -> None:
    jobs, work = JobRegistry(), SteppedWork(2, fail_at=1)
    with caplog.at_level(logging.ERROR, logger="backend.background_jobs"):
        job = jobs.start(("k",), work)
        work.gate.release(2)
        assert job.wait(DEADLINE_S)
    status = job.status()
    assert status.state == "failed" and status.result is None
    assert status.error.startswith("Unexpected RuntimeError: disk on fire.")
    assert "second line" not in status.error and "server log" in status.error
    assert any(record.exc_info for record in caplog.records), "the traceback is logged"
