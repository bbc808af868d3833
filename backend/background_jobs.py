"""Long work in a background thread that outlives the page script which started it.

A Streamlit script stops when its user clicks anything or leaves the page, so work that takes
minutes (pre-parsing a document's RST trees) runs here instead: one daemon thread per job, kept in
a process-wide registry under a stable key, so any later run of any page can find the job, show its
progress and cancel it. Starting a key whose job is still queued or running returns that job, so
the same work never runs twice. Cancelling is cooperative: the work's progress callback raises
`JobCancelled` at its next call (between chunks). Nothing the work raises is lost: a coded
`StudioError` message is kept as it is, anything else is summarised on the job and logged with its
traceback.
"""

from __future__ import annotations

import dataclasses
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, Literal, TypeVar

from backend.errors import StudioError
from backend.progress import ProgressFn

T = TypeVar("T")
JobKey = tuple[str, ...]
JobState = Literal["queued", "running", "done", "failed", "cancelled"]
Work = Callable[[ProgressFn], T]
"""The job's body: called once, in the job's thread, with the progress callback to report to."""

ACTIVE_STATES: frozenset[str] = frozenset({"queued", "running"})
ERROR_CHARS = 300

logger = logging.getLogger(__name__)


class JobCancelled(Exception):
    """Raised inside the work by its progress callback once the job has been asked to cancel."""


@dataclass(frozen=True)
class JobStatus(Generic[T]):
    """One consistent reading of a job, safe to hand to a page while the thread goes on."""

    key: JobKey
    state: JobState = "queued"
    done: int = 0
    total: int = 0
    message: str = ""
    error: str = ""
    started_at: float | None = None
    ended_at: float | None = None
    cancel_requested: bool = False
    result: T | None = None

    @property
    def active(self) -> bool:
        return self.state in ACTIVE_STATES

    @property
    def fraction(self) -> float:
        return min(self.done / self.total, 1.0) if self.total else 0.0

    @property
    def seconds(self) -> float:
        """Time spent running so far, or in all once the job has ended."""
        if self.started_at is None:
            return 0.0
        return (self.ended_at or time.time()) - self.started_at


def summarise(error: BaseException) -> str:
    """A coded studio message as is; anything else as its type and first line, cut short."""
    if isinstance(error, StudioError):
        return str(error)
    first_line = (str(error).strip().splitlines() or [""])[0][:ERROR_CHARS]
    return (
        f"Unexpected {type(error).__name__}: {first_line or 'no message'}. "
        "The full traceback is in the server log."
    )


class Job(Generic[T]):
    """One run of `work` in its own daemon thread; read it with `status()`, stop it with `cancel()`."""

    def __init__(self, key: JobKey, work: Work[T]) -> None:
        self.key = key
        self._work = work
        self._lock = threading.Lock()
        self._cancel = threading.Event()
        self._status: JobStatus[T] = JobStatus(key, message="queued")
        self._thread = threading.Thread(target=self._run, name=f"job:{'/'.join(key)}", daemon=True)

    def status(self) -> JobStatus[T]:
        with self._lock:
            return self._status

    def cancel(self) -> None:
        """Ask the work to stop at its next progress call; a queued job never starts."""
        self._cancel.set()
        self._update(cancel_requested=True)

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the thread ends or `timeout` passes; whether it has ended."""
        self._thread.join(timeout)
        return not self._thread.is_alive()

    def _start(self) -> None:
        self._thread.start()

    def _update(self, **changes: object) -> None:
        with self._lock:
            self._status = dataclasses.replace(self._status, **changes)

    def _progress(self, stage: str, done: int, total: int) -> None:
        self._update(message=stage, done=done, total=total)
        if self._cancel.is_set():
            raise JobCancelled(stage)

    def _run(self) -> None:
        if self._cancel.is_set():
            self._update(state="cancelled", message="cancelled before it started", ended_at=time.time())
            return
        self._update(state="running", message="started", started_at=time.time())
        try:
            result = self._work(self._progress)
        except JobCancelled:
            self._update(state="cancelled", message="cancelled", ended_at=time.time())
        except Exception as error:  # the thread has no caller: keep every failure on the job
            if not isinstance(error, StudioError):
                logger.exception("Background job %s failed", self.key)
            self._update(state="failed", error=summarise(error), message="failed", ended_at=time.time())
        else:
            self._update(state="done", result=result, message="done", ended_at=time.time())


class JobRegistry:
    """Jobs by key; the last job of a key stays readable after it ends, until the key starts again."""

    def __init__(self) -> None:
        self._jobs: dict[JobKey, Job] = {}
        self._lock = threading.Lock()

    def start(self, key: JobKey, work: Work[T]) -> Job[T]:
        """A new job running `work`, or the job already queued or running under `key`."""
        with self._lock:
            current = self._jobs.get(key)
            if current is not None and current.status().active:
                return current
            job = Job(key, work)
            self._jobs[key] = job
            job._start()
        return job

    def get(self, key: JobKey) -> Job | None:
        with self._lock:
            return self._jobs.get(key)


JOBS = JobRegistry()
"""The process-wide registry: every browser session of the app sees the same jobs."""
