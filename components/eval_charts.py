"""Plotly figures for evaluation summaries, one shape per run kind; they take summary rows and draw only.

No streamlit here: the Evaluate page shows one figure at a time, and scripts/evaluate.py writes
every figure of a run into one offline HTML file with the same builders.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape
from typing import Any

import pandas as pd
import plotly.express as px
from plotly.graph_objects import Figure

from backend.eval import qa_run, rst_parseval
from backend.eval.asqa_run import METRICS as ASQA_METRICS

Rows = Sequence[Mapping[str, Any]]
PLOTTED: dict[str, tuple[str, ...]] = {
    "qa": qa_run.METRICS,
    "retrieval": ("f1", "recall"),
    "rst": rst_parseval.METRICS,
    "asqa": ASQA_METRICS,
}
"""The metrics each run kind can plot, as the Evaluate page offers them."""
ROOTS = ("included", "excluded")
CHARTS_HTML = "charts.html"


def method_bars(rows: Rows, metric: str, title: str) -> Figure:
    """One bar per method (QA and ASQA runs)."""
    return px.bar(pd.DataFrame(rows), x="method", y=metric, title=title)


def budget_lines(rows: Rows, metric: str, title: str) -> Figure:
    """Retrieval: the metric against the word budget, one line per retriever."""
    frame = pd.DataFrame(rows).sort_values(["method", "budget"], kind="stable")
    figure = px.line(frame, x="budget", y=metric, color="method", markers=True, title=title)
    figure.update_xaxes(title="word budget", tickvals=sorted(frame["budget"].unique()))
    figure.update_yaxes(title=f"{metric} (%)")
    return figure


def parseval_bars(rows: Rows, metric: str, root: str, title: str) -> Figure:
    """RST: Parseval F1 per parser, paragraph and document level side by side, for one root setting."""
    frame = pd.DataFrame(rows)
    frame = frame[frame["root"] == root]
    figure = px.bar(frame, x="label", y=metric, color="level", barmode="group", title=title)
    figure.update_xaxes(title="parser")
    figure.update_yaxes(title=f"{metric} F1 (%)", range=[0, 100])
    return figure


def run_figure(kind: str, rows: Rows, run: str, metric: str, root: str = ROOTS[0]) -> Figure:
    """The figure the Evaluate page draws for one metric of a run (`root` only matters for RST)."""
    title = f"{metric} ({run})"
    if kind == "retrieval":
        return budget_lines(rows, metric, f"{title} by word budget")
    if kind == "rst":
        return parseval_bars(rows, metric, root, f"{title}, root {root}")
    return method_bars(rows, metric, f"{title} per method")


def run_figures(kind: str, rows: Rows, run: str) -> list[Figure]:
    """Every figure the Evaluate page can draw for a run: one per metric (and per root setting for RST)."""
    roots = ROOTS if kind == "rst" else ROOTS[:1]
    return [run_figure(kind, rows, run, metric, root) for metric in PLOTTED[kind] for root in roots]


def charts_html(figures: Sequence[Figure], title: str) -> str:
    """One self-contained page: plotly.js is inlined once (no CDN), so the file opens offline."""
    bodies = "\n".join(
        figure.to_html(full_html=False, include_plotlyjs=index == 0) for index, figure in enumerate(figures)
    )
    return (
        f'<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>{escape(title)}</title></head>'
        f"<body>\n{bodies}\n</body></html>\n"
    )
