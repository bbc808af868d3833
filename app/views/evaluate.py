"""Evaluate page: run QA, retrieval, RST-parsing or ASQA evaluations (resumable), then compare the scores."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import streamlit as st

from app.evaluate_forms import FORMS
from app.state import studio_or_stop
from backend.eval import qa_run
from backend.eval.asqa_run import load_asqa_records, summarise_asqa
from backend.eval.retrieval_run import load_retrieval_records, summarise_retrieval
from backend.eval.rst_run import load_rst_records, summarise_rst
from backend.eval.run_files import RECORDS, SUMMARY, SUMMARY_JSON, list_runs
from components.eval_charts import PLOTTED, ROOTS, run_figure

KINDS = {
    "qa": "QA (QASPER)",
    "retrieval": "Retrieval (QASPER)",
    "rst": "RST parsing (GUM)",
    "asqa": "Long answers (ASQA)",
}
ABOUT = {
    "qa": "Answers QASPER questions over their own papers with each method and scores answer F1 (as "
    "QASPER's evaluator) and evidence recall/F1 of the passages read.",
    "retrieval": "Each retriever selects up to each word budget from the question's own paper; the text is "
    "scored against the gold evidence (token F1 and recall, best annotator). Merge-only trees; LLM node "
    "summaries are a CLI option.",
    "rst": "RST-Parseval (span, nuclearity, relation, full) of the trained sentence-level parser and its "
    "baselines on GUM dev, at paragraph and document level.",
    "asqa": "Each method writes a long answer to an ambiguous question from that question's passages; "
    "scored by ROUGE-L against the annotators' long answers and STR-EM (short answers found).",
}
SUMMARIES = {
    "qa": lambda d: qa_run.summarise(qa_run.load_records(d)),
    "retrieval": lambda d: summarise_retrieval(load_retrieval_records(d)),
    "rst": lambda d: summarise_rst(load_rst_records(d)),
    "asqa": lambda d: summarise_asqa(load_asqa_records(d)),
}
studio = studio_or_stop()
st.title("Evaluate")
runs_dir = Path(studio.settings.data_dir) / "evaluations"
kind = st.radio("Run kind", list(KINDS), format_func=KINDS.get, horizontal=True, key="evaluate_kind")
st.caption(
    f"{ABOUT[kind]} A run with an existing name resumes; the CLI runs the same code (docs/evaluate.md)."
)
FORMS[kind](studio, runs_dir)

runs = list_runs(runs_dir, kind)
if runs:
    prefix = "evaluate" if kind == "qa" else f"evaluate_{kind}"
    st.subheader("Results")
    run = st.selectbox("Run", runs, key=f"{prefix}_run")
    folder = runs_dir / run
    summary = SUMMARIES[kind](folder)
    st.dataframe(pd.DataFrame(summary), hide_index=True, width="stretch")
    left, right = st.columns(2)
    metric = left.selectbox("Plot", PLOTTED[kind], key=f"{prefix}_metric")
    root = right.selectbox("Root node", ROOTS, key=f"{prefix}_root") if kind == "rst" else ROOTS[0]
    figure = run_figure(kind, summary, run, metric, root)
    st.plotly_chart(figure, width="stretch", key=f"{prefix}_plot")
    if kind == "asqa":
        with st.expander("Answers"):
            answers = [
                {k: getattr(r, k) for k in ("sample_id", "method", "rouge_l", "str_em", "error", "answer")}
                for r in load_asqa_records(folder)
            ]
            st.dataframe(pd.DataFrame(answers), hide_index=True, width="stretch")
    columns = st.columns(3)
    files = ((RECORDS, "jsonl"), (SUMMARY, "csv"), (SUMMARY_JSON, "json"))
    for column, (file, suffix) in zip(columns, files, strict=True):
        if (folder / file).exists():
            column.download_button(
                file, (folder / file).read_bytes(), f"{run}-{file}", key=f"{prefix}_dl_{suffix}"
            )
