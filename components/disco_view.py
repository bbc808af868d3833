"""Viewers for what Disco-RAG and its baselines build: chunk trees, the graph, the plan, markers.

Every viewer says who produced the structure and, when an LLM was asked but its reply could not
be used, that the structure shown came from the fallback producer and why.
"""

from __future__ import annotations

from typing import Any

import pandas as pd
import streamlit as st

from backend.discourse.rhetorical_graph import RhetoricalGraph
from backend.discourse.rst_text_form import relation_name
from backend.discourse.rst_tree import RSTTree
from backend.pipelines import Answer
from components.answer_structures import renderer
from components.rhetorical_graph_view import edge_rows, render_graph_html
from components.rst_outline_view import NUCLEUS, SATELLITE, render_rst_outline_html
from components.safe_text import escape_markdown

_STATUS = {"parsed": "parsed", "repaired": "parsed with repairs", "fallback": "fallback"}


def _sentence(text: str) -> str:
    text = text.strip()
    return text if text.endswith((".", "!", "?")) else f"{text}."


def _producer_line(choice: str) -> None:
    if choice:
        st.caption(f"Structure producer: {escape_markdown(choice)}")


@renderer("rst_trees", "RST trees")
def render_rst_trees(records: list[dict[str, Any]], answer: Answer) -> None:
    _producer_line(records[0].get("choice", "") if records else "")
    st.markdown(
        f"<span style='color:{NUCLEUS}'>▌N nucleus</span> &nbsp; "
        f"<span style='color:{SATELLITE}'>┆S satellite</span> &nbsp; relation on the satellite's edge; "
        "click a join to fold it.",
        unsafe_allow_html=True,
    )
    for record in records:
        outcome = record["outcome"]
        tree = RSTTree.from_dict(record["tree"])
        cached = " · from cache" if record.get("cache_hit") else ""
        title = (
            f"[{record['number']}] {record['place']} · {len(tree.units)} units · "
            f"{record['producer']} · {_STATUS.get(outcome['status'], outcome['status'])}{cached}"
        )
        with st.expander(title, expanded=record["number"] == 1):
            if outcome["status"] == "fallback":
                reason = _sentence(outcome["fallback_reason"])
                st.warning(
                    f"{outcome['requested']} was asked for this tree but could not provide it: {reason} "
                    f"The tree shown was built by {outcome['producer']}."
                )
            for repair in outcome.get("repairs", []):
                st.caption(f"Repair: {escape_markdown(repair)}")
            st.html(render_rst_outline_html(tree, lambda label, t=tree: relation_name(t, label)))


@renderer("rhetorical_graph", "Rhetorical graph")
def render_rhetorical_graph(record: dict[str, Any], answer: Answer) -> None:
    _producer_line(record.get("choice", ""))
    graph = RhetoricalGraph.from_dict(record["graph"])
    st.caption(
        f"Graph built by `{record['producer']}` over {graph.n_nodes} chunks "
        f"({graph.n_nodes * (graph.n_nodes - 1)} ordered pairs)."
    )
    if record.get("fallback_reason"):
        st.warning(
            f"{record['requested']} was asked for the graph, but its reply could not be used: "
            f"{_sentence(record['fallback_reason'])} The graph shown was built by {record['producer']}."
        )
    missing = record.get("not_predicted", [])
    if missing:
        st.info(f"{len(missing)} pairs were not predicted by the model and count as UNRELATED.")
    for problem in graph.metadata.get("problems", []):
        st.caption(f"Reply problem: {escape_markdown(problem)}")
    show = st.toggle("Show UNRELATED pairs", value=False, key="disco_graph_unrelated")
    titles = [f"[{c['number']}] {c['place']}: {c['preview']}" for c in record.get("chunks", [])]
    st.iframe(render_graph_html(graph, titles, show, missing), height=520)
    rows = edge_rows(graph, missing)
    if rows:
        with st.expander(f"Related pairs ({len(rows)})"):
            st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")


@renderer("plan", "Plan")
def render_plan(record: dict[str, Any], answer: Answer) -> None:
    producer = record.get("producer", "")
    base = " (a small base model: expect the plan to be noise)" if producer.startswith("embedded:") else ""
    st.caption(f"Plan written by `{producer}`{base}")
    with st.container(border=True):
        st.markdown(escape_markdown(record["text"]) if record.get("text") else "_No plan._")
    for problem in record.get("problems", []):
        st.caption(escape_markdown(problem))
    queries = record.get("retrieval_queries")
    if queries is not None:
        st.markdown("**Search queries from the plan**")
        for query in queries or ["(none: only the question was used)"]:
            st.markdown(f"- {escape_markdown(query)}")


@renderer("discourse_markers", "Discourse markers")
def render_markers(record: dict[str, Any], answer: Answer) -> None:
    _producer_line(record.get("choice", ""))
    st.caption(f"Markers chosen by `{record['producer']}`")
    if record.get("fallback_reason"):
        st.warning(
            f"{record['requested']} was asked for the markers, but its reply could not be used: "
            f"{_sentence(record['fallback_reason'])} The markers shown come from: {record['producer']}."
        )
    rows = [
        {"from": f"[{i + 1}]", "to": f"[{j + 1}]", "marker": m} for i, j, m in record["pairs"] if m != "NONE"
    ]
    if rows:
        st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")
    st.caption(f"{len(record['pairs']) - len(rows)} ordered pairs have no marker (NONE).")
