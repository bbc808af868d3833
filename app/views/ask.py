"""Ask page: choose documents and a method, ask, and read a cited answer with its evidence."""

from __future__ import annotations

import streamlit as st

import components.structure_viewers  # noqa: F401  (registers renderers)
from app.state import studio_or_stop
from backend.errors import StudioError
from backend.pipelines.registry import get_method, method_names
from components.evidence import render_answer

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
method = st.selectbox(
    "Method",
    methods,
    index=methods.index("standard_rag"),
    format_func=lambda n: get_method(n).title,
    key="ask_method",
    help="How the answer is built; each method's description is shown below.",
)
st.caption(get_method(method).description)
if studio.llm.label.startswith("embedded:"):
    st.info(
        "The embedded model is a small base model that does not follow instructions: its answers are "
        "plumbing, not analysis. Connect an Ollama or OpenAI-compatible "
        "server in the sidebar for real answers."
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
