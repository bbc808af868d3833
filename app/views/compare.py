"""Compare page: one question, several methods, their answers, evidence overlap and cost side by side."""

from __future__ import annotations

import pandas as pd
import plotly.express as px
import streamlit as st

import components.structure_viewers  # noqa: F401  (registers renderers)
from app.state import studio_or_stop
from backend.compare import evidence_overlap
from backend.errors import StudioError
from backend.pipelines.registry import get_method, method_names
from components.evidence import render_answer
from components.safe_text import escape_markdown

DEFAULTS = ("standard_rag", "extractive", "disco_rag", "disretrieval", "rdr2")

studio = studio_or_stop()
st.title("Compare")
summaries = studio.library.summaries()
if not summaries:
    st.info("The library is empty: add documents on the Library page first.")
    st.stop()

names = {s.id: s.name for s in summaries}
doc_ids = st.multiselect(
    "Documents (none chosen: the whole library)", list(names), format_func=names.get, key="compare_docs"
)
available = method_names()
methods = st.multiselect(
    "Methods",
    available,
    default=[m for m in DEFAULTS if m in available],
    format_func=lambda n: get_method(n).title,
    key="compare_methods",
)
with st.form("compare_form"):
    question = st.text_input("Question", key="compare_question")
    submitted = st.form_submit_button("Run all", type="primary", key="compare_submit")

if submitted:
    if not methods or not question.strip():
        st.warning("Choose at least one method and type a question.")
    else:
        answers, failures = [], {}
        bar = st.progress(0.0, text=f"0 of {len(methods)} methods")
        for number, method in enumerate(methods, start=1):
            bar.progress(
                (number - 1) / len(methods), text=f"{get_method(method).title} ({number} of {len(methods)})"
            )
            try:
                answers.append(studio.ask(method, question, doc_ids or None))
            except StudioError as error:
                failures[method] = str(error)
        bar.empty()
        st.session_state["compare_result"] = (answers, failures)

if "compare_result" in st.session_state:
    answers, failures = st.session_state["compare_result"]
    for method, message in failures.items():
        st.error(f"{get_method(method).title}: {message}")
    if answers:
        rows = [
            {
                "method": get_method(a.method).title,
                "producer": a.producer,
                "answer words": len(a.text.split()),
                "passages": len(a.passages),
                "evidence words": sum(len(p.text.split()) for p in a.passages),
                "LLM calls": sum(c.calls for c in a.costs),
                "tokens": a.total_tokens,
                "seconds": round(a.total_latency_s, 2),
                "warnings": len(a.warnings),
            }
            for a in answers
        ]
        st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")
        if len(answers) > 1:
            labels = [get_method(a.method).title for a in answers]
            figure = px.imshow(
                evidence_overlap(answers),
                x=labels,
                y=labels,
                zmin=0,
                zmax=1,
                text_auto=".2f",
                color_continuous_scale="Blues",
                title="Evidence overlap (share of characters read by both)",
            )
            st.plotly_chart(figure, width="stretch", key="compare_overlap")
        for row_start in range(0, len(answers), 3):
            columns = st.columns(min(3, len(answers) - row_start))
            for column, answer in zip(columns, answers[row_start : row_start + 3], strict=False):
                with column, st.container(border=True):
                    st.markdown(f"**{escape_markdown(get_method(answer.method).title)}**")
                    st.markdown(escape_markdown(answer.text) if answer.text else "_No answer text._")
        for answer in answers:
            with st.expander(f"Everything from {get_method(answer.method).title}"):
                render_answer(answer, key=f"compare_{answer.method}")
