"""Library page: upload and index documents, see what each holds, delete or re-index them."""

from __future__ import annotations

import logging
from pathlib import Path

import pandas as pd
import streamlit as st

from app.preparse_panel import preparse_panel
from app.state import studio_or_stop
from backend.errors import StudioError
from backend.studio import Studio
from components.safe_text import escape_markdown

SAMPLES_DIR = Path(__file__).resolve().parents[2] / "assets" / "samples"
NOTICE_KEY = "library_notice"
FAILURES_KEY = "library_failures"
STAGE_NAMES = {"read": "Reading", "segment": "Segmenting", "embed": "Embedding", "store": "Storing"}
_log = logging.getLogger("app.views.library")


def _failure_message(error: Exception, action: str, subject: str) -> str:
    """Coded errors are written for users; anything else is logged in full and only named here."""
    shown = escape_markdown(subject)
    if isinstance(error, StudioError):
        return f"{shown}: {error}"
    _log.exception("%s '%s' failed", action, subject, exc_info=error)
    return f"{action} '{shown}' failed ({type(error).__name__}); details are in the server log."


def _index_files(studio: Studio, files: list[tuple[str, bytes]]) -> None:
    overall = st.progress(0.0, text=f"0 of {len(files)} files")
    for number, (name, data) in enumerate(files, start=1):
        bar = st.progress(0.0, text=f"{name}: starting")

        def progress(stage: str, done: int, total: int, name: str = name, bar=bar) -> None:
            fraction = done / total if total else 0.0
            counts = f" {done}/{total}" if total > 1 else ""
            bar.progress(min(fraction, 1.0), text=f"{name}: {STAGE_NAMES.get(stage, stage)}{counts}")

        try:
            report = studio.indexer.index_file(data, name, progress=progress)
        except Exception as error:  # one broken file must not stop the others
            bar.empty()
            st.error(_failure_message(error, "Indexing", name))
        else:
            bar.empty()
            if report.status == "unchanged":
                st.info(f"{name}: already in the library as '{report.name}', nothing to do.")
            else:
                doc = report.document
                st.success(
                    f"{name}: indexed {len(doc.paragraphs)} paragraphs, {len(doc.sentences)} sentences, "
                    f"{len(doc.chunks)} chunks in {sum(report.seconds.values()):.1f} s."
                )
                for warning in doc.warnings:
                    st.warning(f"{name}: {warning}")
        overall.progress(number / len(files), text=f"{number} of {len(files)} files")


def _upload_section(studio: Studio) -> None:
    wanted = studio.settings.max_upload_mb
    server_cap = float(st.get_option("server.maxUploadSize"))
    limit = min(wanted, server_cap)
    # No `type=` filter: our loader names the supported types for a .docx or an extension-less file.
    uploads = st.file_uploader(
        f"Add documents (PDF, TXT, Markdown, HTML; up to {limit:g} MB each)",
        accept_multiple_files=True,
        key="library_uploads",
    )
    if wanted > server_cap:
        st.caption(
            f"STUDIO_MAX_UPLOAD_MB is {wanted:g} MB, but the server takes at most {server_cap:g} MB "
            "per file: raise server.maxUploadSize in .streamlit/config.toml to allow more."
        )
    left, right = st.columns(2)
    if left.button("Index uploaded files", disabled=not uploads, type="primary", key="library_index"):
        _index_files(studio, [(f.name, f.getvalue()) for f in uploads])
    samples = sorted(p for p in SAMPLES_DIR.glob("*") if p.is_file())
    if right.button(f"Add the {len(samples)} sample documents", key="library_samples", disabled=not samples):
        _index_files(studio, [(p.name, p.read_bytes()) for p in samples])


def _pending_section(studio: Studio) -> None:
    """Ingestions killed before their commit: finish them from the saved upload, or forget them."""
    pending = studio.indexer.pending()
    if not pending:
        return
    st.warning(f"{len(pending)} ingestion(s) were interrupted before finishing and are not in the library.")
    for entry in pending:
        left, middle, right = st.columns([3, 1, 1])
        left.markdown(f"**{escape_markdown(entry.name)}**")
        if middle.button("Resume", key=f"library_resume_{entry.doc_id}"):
            _index_pending(studio, entry.doc_id, entry.name)
        if right.button("Discard", key=f"library_discard_{entry.doc_id}"):
            try:
                studio.indexer.discard(entry.doc_id)
            except Exception as error:
                st.session_state[FAILURES_KEY] = [_failure_message(error, "Discarding", entry.name)]
            else:
                st.session_state[NOTICE_KEY] = f"Discarded the interrupted ingestion of '{entry.name}'."
            st.rerun()


def _index_pending(studio: Studio, doc_id: str, name: str) -> None:
    bar = st.progress(0.0, text=f"{name}: resuming")

    def progress(stage: str, done: int, total: int) -> None:
        counts = f" {done}/{total}" if total > 1 else ""
        bar.progress(
            min(done / total if total else 0.0, 1.0), text=f"{name}: {STAGE_NAMES.get(stage, stage)}{counts}"
        )

    try:
        studio.indexer.resume(doc_id, progress=progress)
    except Exception as error:
        bar.empty()
        st.error(_failure_message(error, "Resuming", name))
        return
    st.session_state[NOTICE_KEY] = f"Finished indexing '{name}'."
    st.rerun()


def _documents_section(studio: Studio) -> None:
    summaries = studio.library.summaries()
    st.subheader(f"Documents ({len(summaries)})")
    if not summaries:
        st.info("The library is empty. Upload files above, or add the sample documents to try the studio.")
        return
    stale = set(studio.stale_documents())
    rows = [
        {
            "name": s.name,
            "type": s.source_type,
            "size (KB)": round(s.size_bytes / 1024, 1),
            "pages": s.page_count,
            "paragraphs": s.paragraphs,
            "sentences": s.sentences,
            "chunks": s.chunks,
            "words": s.words,
            "index": "needs re-indexing" if s.id in stale else "current",
        }
        for s in summaries
    ]
    st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")
    names = {s.id: s.name for s in summaries}
    if stale and st.button(
        f"Re-index {len(stale)} documents built with other settings", key="library_reindex"
    ):
        _reindex(studio, [doc_id for doc_id in names if doc_id in stale], names)
    with st.expander("Delete a document"):
        doc_id = st.selectbox("Document", list(names), format_func=names.get, key="library_delete_pick")
        confirm = st.checkbox(
            "Also delete its chunks, vectors and stored upload", key="library_delete_confirm"
        )
        if st.button("Delete", disabled=not confirm, key="library_delete"):
            try:
                studio.indexer.delete(doc_id)
            except Exception as error:
                st.session_state[FAILURES_KEY] = [_failure_message(error, "Deleting", names[doc_id])]
            else:
                st.session_state[NOTICE_KEY] = f"Deleted '{names[doc_id]}' and everything derived from it."
            st.rerun()
    _preparse_section(studio, names)


def _reindex(studio: Studio, doc_ids: list[str], names: dict[str, str]) -> None:
    """Re-index each document; a failure is reported after the rerun and the others go on."""
    failures = []
    for doc_id in doc_ids:
        with st.spinner(f"Re-indexing {names[doc_id]}"):
            try:
                studio.indexer.reindex(doc_id)
            except Exception as error:
                failures.append(_failure_message(error, "Re-indexing", names[doc_id]))
    if done := len(doc_ids) - len(failures):
        st.session_state[NOTICE_KEY] = f"Re-indexed {done} documents with the current settings."
    st.session_state[FAILURES_KEY] = failures
    st.rerun()


def _preparse_section(studio: Studio, names: dict[str, str]) -> None:
    """Parse a document's chunk trees ahead of time, so Disco-RAG questions find them cached."""
    with st.expander("Pre-parse RST trees (Disco-RAG)"):
        preparse_panel(studio, names)


studio = studio_or_stop()
st.title("Library")
if NOTICE_KEY in st.session_state:
    st.success(st.session_state.pop(NOTICE_KEY))
for failure in st.session_state.pop(FAILURES_KEY, []):
    st.error(failure)
_upload_section(studio)
_pending_section(studio)
_documents_section(studio)
