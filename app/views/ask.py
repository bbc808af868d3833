"""Ask page: choose documents and a method, ask, and read a cited answer with its evidence."""

from __future__ import annotations

import streamlit as st

import components.structure_viewers  # noqa: F401  (registers renderers)
from app.state import studio_or_stop
from backend.errors import StudioError
from backend.llm.capability import KNOWN_BASE_PREFIX, capability
from backend.pipelines.registry import get_method, method_names
from backend.studio import Studio
from components.evidence import render_answer

CHOSEN_KEY = "ask_method_chosen"
"""The method the user picked, kept apart from the widget's key so it outlives visits to other pages."""


def _default_method(studio: Studio) -> tuple[str, str]:
    """standard_rag when the generator passes the capability check; otherwise extractive and why.

    Uses the cached report (the embedded base model is known without a probe), so a page load
    probes a server model at most once per process.
    """
    try:
        report = capability(studio.llm)
    except StudioError as error:
        return "extractive", f"The configured model cannot start ({error.what})"
    if report.follows_formats:
        return "standard_rag", ""
    model = f"The configured model `{report.model}`"
    if report.model.startswith(KNOWN_BASE_PREFIX) and not report.checks:
        return "extractive", f"{model} is a base model"
    if report.error:
        return "extractive", f"{model} could not be checked ({report.error})"
    passed = sum(c.passed for c in report.checks)
    return "extractive", f"{model} failed the format check ({passed}/{len(report.checks)} probe checks)"


def _remember_choice() -> None:
    """Runs only on the user's change, so the default the page sets is never taken for a choice."""
    st.session_state[CHOSEN_KEY] = st.session_state["ask_method"]


studio = studio_or_stop()
st.title("Ask")
summaries = studio.library.summaries()
if not summaries:
    st.info("The library is empty: add documents on the Library page first.")
    st.stop()

names = {s.id: s.name for s in summaries}
scope = st.radio("Search in", ["Whole library", "Chosen documents"], horizontal=True, key="ask_scope")
doc_ids = None
if scope == "Chosen documents":
    doc_ids = st.multiselect("Documents", list(names), format_func=names.get, key="ask_docs")
methods = method_names()
default, why_extractive = _default_method(studio)
chosen = st.session_state.get(CHOSEN_KEY)
st.session_state["ask_method"] = chosen if chosen in methods else default
method = st.selectbox(
    "Method",
    methods,
    format_func=lambda n: get_method(n).title,
    key="ask_method",
    on_change=_remember_choice,
    help="How the answer is built; each method's description is shown below.",
)
st.caption(get_method(method).description)
if why_extractive and method == "extractive":
    st.caption(f"{why_extractive}; answers are extractive by default. Pick another method to use it anyway.")
elif why_extractive:
    st.info(
        f"{why_extractive}, so the answers it writes are plumbing, not analysis. Connect an "
        "instruction-following model (Ollama or an OpenAI-compatible server) in the sidebar for real answers."
    )

with st.form("ask_form"):
    question = st.text_input("Question", key="ask_question", placeholder="What does the document say about…?")
    submitted = st.form_submit_button("Ask", type="primary", key="ask_submit")

if submitted:
    if doc_ids is not None and not doc_ids:
        st.warning("Choose at least one document, or search the whole library.")
    elif not question.strip():
        st.warning("Type a question first.")
    else:
        try:
            with st.spinner(f"Answering with {get_method(method).title}…"):
                st.session_state["ask_answer"] = studio.ask(method, question, doc_ids)
        except StudioError as error:
            st.error(str(error))

if "ask_answer" in st.session_state:
    render_answer(st.session_state["ask_answer"])
