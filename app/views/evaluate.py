"""Evaluate page: run methods over QASPER questions (resumable), then compare their scores."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import plotly.express as px
import streamlit as st

from app.state import studio_or_stop
from backend.errors import StudioError
from backend.eval.qa_run import METRICS, RECORDS, SUMMARY, load_records, run_qa_eval, summarise
from backend.pipelines.registry import get_method, method_names

DEFAULT_DATASET = Path(__file__).resolve().parents[3] / "shared" / "data" / "qasper" / "qasper-dev-v0.3.json"

studio = studio_or_stop()
st.title("Evaluate")
runs_dir = Path(studio.settings.data_dir) / "evaluations"
st.caption(
    "Answers QASPER questions over their own papers with each method and scores answer F1 (as QASPER's "
    "evaluator) and evidence recall/F1 of the passages read. A run with an existing name resumes. "
    "Retrieval budgets and RST parsing have their own commands (see the README)."
)

with st.form("evaluate_form"):
    dataset = st.text_input("QASPER-format file", str(DEFAULT_DATASET), key="evaluate_dataset")
    methods = st.multiselect(
        "Methods",
        method_names(),
        default=["extractive"],
        format_func=lambda n: get_method(n).title,
        key="evaluate_methods",
    )
    left, middle, right = st.columns(3)
    papers = left.number_input("Papers", 1, 300, 3, key="evaluate_papers")
    per_paper = middle.number_input("Questions per paper", 1, 20, 2, key="evaluate_per_paper")
    name = right.text_input("Run name", "sample", key="evaluate_name")
    submitted = st.form_submit_button("Run (or resume)", type="primary", key="evaluate_submit")

if submitted:
    path = Path(dataset)
    if not path.is_file():
        st.error(f"No file at {path}.")
    elif not methods or not name.strip().replace("-", "").replace("_", "").isalnum():
        st.error("Choose at least one method and a run name of letters, digits, '-' or '_'.")
    else:
        bar = st.progress(0.0, text="Starting")

        def progress(_stage: str, done: int, total: int) -> None:
            bar.progress(done / total if total else 1.0, text=f"{done} of {total} answers")

        try:
            run_qa_eval(
                studio,
                path,
                methods,
                runs_dir / name,
                n_papers=papers,
                per_paper=per_paper,
                progress=progress,
            )
        except (StudioError, ValueError, KeyError) as error:
            st.error(f"The run stopped: {error}. Finished answers are kept; run again to resume.")

runs = sorted(p.name for p in runs_dir.glob("*") if (p / RECORDS).exists()) if runs_dir.exists() else []
if runs:
    st.subheader("Results")
    run = st.selectbox("Run", runs, key="evaluate_run")
    records = load_records(runs_dir / run)
    summary = pd.DataFrame(summarise(records))
    st.dataframe(summary, hide_index=True, width="stretch")
    metric = st.selectbox("Plot", METRICS, key="evaluate_metric")
    figure = px.bar(summary, x="method", y=metric, title=f"{metric} per method ({run})")
    st.plotly_chart(figure, width="stretch", key="evaluate_plot")
    left, right = st.columns(2)
    left.download_button(
        "records.jsonl",
        (runs_dir / run / RECORDS).read_bytes(),
        f"{run}-records.jsonl",
        key="evaluate_dl_jsonl",
    )
    if (runs_dir / run / SUMMARY).exists():
        right.download_button(
            "summary.csv",
            (runs_dir / run / SUMMARY).read_bytes(),
            f"{run}-summary.csv",
            key="evaluate_dl_csv",
        )
