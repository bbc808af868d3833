"""Library section: pre-parse a document's RST trees in a background job, with live progress.

The job runs in the backend's job registry, not in this script, so leaving the page or clicking
elsewhere does not stop it. While it runs, a fragment redraws its progress every `POLL_SECONDS`;
once it ends, one full rerun shows the result and, since the fragment is no longer drawn, stops
the polling.
"""

from __future__ import annotations

import logging

import streamlit as st

from backend.background_jobs import Job, JobStatus, summarise
from backend.discourse.tree_cache import PreparseReport
from backend.errors import StudioError
from backend.pipelines.disco_stages import preparse_job, start_preparse
from backend.studio import Studio
from components.safe_text import escape_markdown

POLL_SECONDS = 1.0
RESUME_NOTE = "The trees parsed so far are cached: start again to go on from there."
_log = logging.getLogger(__name__)


def preparse_panel(studio: Studio, names: dict[str, str]) -> None:
    """Pick a document (one with a running job first, so a returning user sees its progress),
    start its pre-parse job, and show the job's progress or last result."""
    st.caption(f"Producer: {escape_markdown(studio.structure_choice().reason)}")
    try:
        jobs = {doc_id: preparse_job(studio.settings, studio.llm, doc_id) for doc_id in names}
        busy = [i for i, job in enumerate(jobs.values()) if job is not None and job.status().active]
        doc_id = st.selectbox(
            "Document",
            list(names),
            index=busy[0] if busy else 0,
            format_func=names.get,
            key="library_preparse_pick",
        )
        job = jobs[doc_id]
        running = job is not None and job.status().active
        if st.button("Pre-parse RST trees", key="library_preparse", disabled=running):
            job = start_preparse(studio.settings, studio.llm, studio.library.get(doc_id))
    except Exception as error:  # a page shows errors, never a traceback
        if not isinstance(error, StudioError):
            _log.exception("Starting a pre-parse job failed")
        st.error(f"Pre-parsing: {escape_markdown(summarise(error))}")
        return
    name = escape_markdown(names[doc_id])
    if job is None:
        return
    if job.status().active:
        _live_progress(job, name)
    else:
        _outcome(job.status(), name)


def _counts(status: JobStatus[PreparseReport]) -> str:
    return f"{status.done} / {status.total} chunks"


@st.fragment(run_every=POLL_SECONDS)
def _live_progress(job: Job[PreparseReport], name: str) -> None:
    """Redrawn on its own while the job runs; a full rerun once it ends shows the result."""
    status = job.status()
    if not status.active:
        st.rerun()
    st.progress(
        status.fraction, text=f"{name}: parsing chunk trees, {_counts(status)} ({status.seconds:.0f} s)"
    )
    if status.cancel_requested:
        st.caption("Cancelling after the current chunk…")
    elif st.button("Cancel", key="library_preparse_cancel"):
        job.cancel()
        st.caption("Cancelling after the current chunk…")


def _outcome(status: JobStatus[PreparseReport], name: str) -> None:
    report = status.result
    if status.state == "done" and report is not None:
        st.success(
            f"{name}: {report.parsed} trees parsed, {report.cached} already cached, "
            f"{report.fallbacks} from the fallback parser, in {report.seconds:.1f} s."
        )
    elif status.state == "failed":
        error = escape_markdown(status.error)
        st.error(f"{name}: pre-parsing failed after {_counts(status)}. {error} {RESUME_NOTE}")
    elif status.state == "cancelled":
        st.info(f"{name}: pre-parsing cancelled after {_counts(status)}. {RESUME_NOTE}")
