"""Renders an answer: text, numbered citations, warnings, the passages read and the cost table."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from backend.pipelines import Answer
from backend.reports.answer_export import answer_to_html, answer_to_json
from components.answer_structures import render_structures
from components.report_drawings import REPORT_DRAWINGS
from components.safe_text import escape_markdown


def render_answer(answer: Answer, key: str = "answer") -> None:
    """`key` keeps widgets apart when several answers share a page (the Compare view)."""
    st.markdown(f"**Answer** · {escape_markdown(answer.method)} · produced by `{answer.producer}`")
    st.caption(f"Question: {escape_markdown(answer.question)}")
    if answer.method == "extractive":
        st.caption("Extractive answer: sentences selected from the documents, no model wrote this.")
    if answer.failed_stage:
        st.error(
            f"No answer: the model call in the {escape_markdown(answer.failed_stage)} stage failed. "
            "What was built before it is kept below; check the model server in the sidebar and ask again."
        )
    else:
        with st.container(border=True):
            st.markdown(escape_markdown(answer.text) if answer.text else "_No answer text._")
    for warning in answer.warnings:
        st.warning(warning)
    if answer.citations:
        st.markdown("**Sources cited**")
        for citation in answer.citations:
            origin = {
                "model": "cited by the model",
                "extractive": "selected from the document",
            }.get(citation.source, f"attributed by similarity {citation.similarity or 0.0:.2f}")
            st.markdown(f"\\[{citation.number}\\] {escape_markdown(citation.passage.place)} · _{origin}_")
    render_structures(answer)
    render_passages(answer)
    render_costs(answer)
    render_export(answer, key)


def render_export(answer: Answer, key: str) -> None:
    left, right = st.columns(2)
    stem = f"answer-{answer.method}"
    left.download_button(
        "Download JSON", answer_to_json(answer), f"{stem}.json", "application/json", key=f"{key}_json"
    )
    right.download_button(
        "Download HTML report",
        answer_to_html(answer, REPORT_DRAWINGS),
        f"{stem}.html",
        "text/html",
        key=f"{key}_html",
    )


def render_passages(answer: Answer) -> None:
    cited = {c.number for c in answer.citations}
    st.markdown(f"**Passages given to the model** ({len(answer.passages)})")
    for number, passage in enumerate(answer.passages, start=1):
        score = f" · score {passage.score:.3f}" if passage.score is not None else ""
        mark = " · cited" if number in cited else ""
        with st.expander(f"[{number}] {passage.place}{score}{mark}", expanded=number in cited):
            st.markdown(escape_markdown(passage.text))


def render_costs(answer: Answer) -> None:
    if not answer.costs:
        return
    rows = [
        {
            "stage": c.stage,
            "calls": c.calls,
            "prompt tokens": c.prompt_tokens,
            "completion tokens": c.completion_tokens,
            "seconds": round(c.latency_s, 3),
            "retries": c.retries,
            "cache hits": c.cache_hits,
        }
        for c in answer.costs
    ]
    st.caption(f"Total: {answer.total_tokens} tokens, {answer.total_latency_s:.2f} s")
    st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")
