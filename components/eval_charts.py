"""Plotly figures for evaluation summaries, one shape per run kind; they take summary rows and draw only."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd
import plotly.express as px
from plotly.graph_objects import Figure

Rows = Sequence[Mapping[str, Any]]


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
