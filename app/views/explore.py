"""Explore page: a document's heading tree (RDR2's) and retrieval tree, and what a question selects."""

from __future__ import annotations

import streamlit as st

from app.state import studio_or_stop
from backend.errors import StudioError
from backend.pipelines.registry import get_method
from backend.retrieval.node_text import Summariser
from backend.retrieval.selection_record import SelectionRecord
from backend.retrieval.summary_cache import SummaryCache
from backend.retrieval.tree_index import ENHANCED, TREE_METHODS, TreeIndex
from backend.retrieval.tree_retrieval import tree_retrieve
from backend.routing.document_trees import structure_tree_for
from backend.studio import Studio
from components.discourse_tree_view import text_html, tree_html, visits_table
from components.safe_text import escape_markdown
from components.trajectory_view import render_structure_tree

MERGE_ONLY, SUMMARIES = "Merge only (no LLM calls)", "LLM summaries (tau rule)"
RESULT_KEY = "explore_result"


def _summariser(studio: Studio, method: str) -> tuple[Summariser | None, str]:
    if method not in ENHANCED:
        return None, "Flat units: no internal nodes."
    texts = st.radio("Node texts", [MERGE_ONLY, SUMMARIES], horizontal=True, key="explore_texts")
    if texts == MERGE_ONLY:
        return None, "Merge-only node texts: each internal node is its children's text joined."
    choice = studio.structure_choice()
    if choice.llm is None:
        st.info(f"No model can write summaries now, so the tree stays merge-only. {choice.reason}")
        return None, f"Merge-only node texts. {choice.reason}"
    tau = studio.settings.disr_tau_words
    st.caption(
        f"Summaries by {escape_markdown(choice.llm.label)} for nodes whose children reach {tau} words "
        "(STUDIO_DISR_TAU_WORDS); shorter ones are merged. The merge-only shape is reused."
    )
    cache = SummaryCache(studio.settings.data_dir, choice.llm.label)
    return Summariser(
        choice.llm, cache
    ), f"Node summaries by {choice.llm.label} at tau={tau}. {choice.reason}"


def _progress_bar():
    bar = st.progress(0.0, text="Starting…")

    def progress(stage: str, done: int, total: int) -> None:
        counts = f" {done}/{total}" if total > 1 else ""
        bar.progress(min(done / total, 1.0) if total else 0.0, text=f"{stage}{counts}")

    return bar, progress


studio = studio_or_stop()
st.title("Explore")
st.caption(
    "The retrieval tree of one document: DISRetrieval's discourse tree (paragraph trees from the trained "
    "sentence-level parser, joined by a tree over paragraphs) or a baseline's. Ask a question to see the "
    "nodes that scored highest and the evidence they selected."
)
summaries = studio.library.summaries()
if not summaries:
    st.info("The library is empty: add documents on the Library page first.")
    st.stop()

names = {s.id: s.name for s in summaries}
if st.session_state.get("explore_doc") not in names:
    st.session_state["explore_doc"] = next(iter(names))
doc_id = st.selectbox("Document", list(names), format_func=names.get, key="explore_doc")
doc = studio.library.get(doc_id)
with st.expander("Heading tree (what RDR2 routes over)"):
    render_structure_tree(structure_tree_for(doc, studio.library))
method = st.selectbox(
    "Tree", list(TREE_METHODS), format_func=lambda m: get_method(m).title, key="explore_method"
)
if doc.index_fingerprint != studio.settings.index_fingerprint():
    st.warning("This document was indexed under other settings: re-index it on the Library page first.")
    st.stop()
summariser, reason = _summariser(studio, method)
index = TreeIndex(studio.settings, studio.embedder, studio.store)

try:
    if index.cached(doc, method, summariser) is None:
        st.info("This tree is not built yet. Building embeds every node once; later loads are instant.")
        if not st.button("Build the tree", type="primary", key="explore_build"):
            st.stop()
    bar, progress = _progress_bar()
    item, report = index.get(doc, method, summariser, progress)
    bar.empty()
except StudioError as error:
    st.error(str(error))
    st.stop()

tree = item.tree
if not report.cached:
    st.success(
        f"Built in {report.total_s:.1f} s ({', '.join(f'{k} {v:.1f} s' for k, v in report.seconds.items())})."
    )
producers = ", ".join(f"{escape_markdown(p)} × {n}" for p, n in tree.producers().items()) or "none (flat)"
st.caption(
    f"Shape by `{tree.structure_producer}` · {len(tree.nodes)} nodes, {tree.leaf_count} leaves, depth "
    f"{max(n.depth for n in tree.nodes)} · node texts: {producers} · tree id `{tree.tree_id}`"
)
st.caption(escape_markdown(reason))
for warning in tree.warnings:
    st.warning(warning)

with st.form("explore_form"):
    question = st.text_input(
        "Question", key="explore_question", placeholder="What does the document say about…?"
    )
    asked = st.form_submit_button("Find evidence", key="explore_find")
if asked and question.strip():
    try:
        with st.spinner("Scoring every node…"):
            found = tree_retrieve(question.strip(), [doc], method, index, summariser, reason)
        st.session_state[RESULT_KEY] = found.record.to_dict()
    except StudioError as error:
        st.error(str(error))

record = None
if RESULT_KEY in st.session_state:
    candidate = SelectionRecord.from_dict(st.session_state[RESULT_KEY])
    if candidate.trees and candidate.trees[0].tree_id == tree.tree_id:
        record = candidate
hits: dict[int, tuple[int, float]] = {}
selected: set[int] = set()
if record is not None:
    for rank, visit in enumerate(record.visits, start=1):
        if not visit.is_leaf or visit.added:
            hits.setdefault(visit.node, (rank, visit.score))
    selected = {s.node for s in record.selected}
    st.markdown(
        f"**{record.words} of {record.budget} words selected** in {len(record.selected)} units; "
        "★ marks the nodes that scored highest (with rank and cosine), ✔ the evidence selected."
    )

root_choice = st.number_input(
    "View the subtree of node",
    min_value=0,
    max_value=len(tree.nodes) - 1,
    value=None,
    key="explore_root",
    help="Leave empty to view the whole tree; node numbers are shown as #n.",
)
tree_tab, text_tab, table_tab = st.tabs(["Tree", "Text", "Top nodes"])
with tree_tab:
    st.markdown(
        tree_html(tree, root=None if root_choice is None else int(root_choice), hits=hits, selected=selected),
        unsafe_allow_html=True,
    )
with text_tab:
    spans = [(tree.nodes[n].start_char, tree.nodes[n].end_char) for n in selected if tree.nodes[n].is_leaf]
    st.markdown(text_html(doc.text, spans), unsafe_allow_html=True)
with table_tab:
    if record is None:
        st.info("Ask a question to see the nodes that scored highest.")
    else:
        st.dataframe(visits_table(record, lambda _: doc.name), hide_index=True, width="stretch")
