"""Static drawings of an answer's structures for the HTML report: no scripts, every text escaped.

The report must open offline and run no code, so where the pages use pyvis and sliders the report
uses nested <details> trees, an SVG of the rhetorical graph, every routing step one after another,
and plain tables. Each drawing takes the value stored in `Answer.structures` under its key.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from html import escape
from typing import Any

from backend.discourse.rhetorical_graph import RhetoricalGraph
from backend.discourse.rst_text_form import relation_name
from backend.discourse.rst_tree import RSTTree
from backend.retrieval.selection_record import SelectionRecord
from backend.routing.trajectory import RoutingRecord
from components.rhetorical_graph_view import FAMILIES, HIGHLIGHTED, colour, edge_rows, family
from components.rst_outline_view import render_rst_outline_html
from components.trajectory_view import legend_html, tree_html

MAX_VISITS = 40
_SIZE = 420
_NODE_R = 16


def _table(rows: list[dict[str, Any]]) -> str:
    if not rows:
        return ""
    head = "".join(f"<th>{escape(str(k))}</th>" for k in rows[0])
    body = "".join(
        "<tr>" + "".join(f"<td>{escape(str(v))}</td>" for v in row.values()) + "</tr>" for row in rows
    )
    return f"<table><tr>{head}</tr>{body}</table>"


def draw_rst_trees(records: list[dict[str, Any]]) -> str:
    parts = []
    for record in records:
        tree = RSTTree.from_dict(record["tree"])
        outcome = record["outcome"]
        parts.append(
            f"<h3>[{record['number']}] {escape(record['place'])} · {len(tree.units)} units · "
            f"{escape(record['producer'])} · {escape(outcome['status'])}</h3>"
        )
        if outcome["status"] == "fallback":
            parts.append(
                f'<p class="warn">{escape(outcome["requested"])} was asked for this tree but could not '
                f"provide it: {escape(outcome['fallback_reason'])}</p>"
            )
        parts.append(render_rst_outline_html(tree, lambda label, t=tree: relation_name(t, label)))
    return "\n".join(parts)


def graph_svg(graph: RhetoricalGraph) -> str:
    """Chunks on a circle, one arrow per related ordered pair, coloured by relation family."""
    centre, radius = _SIZE / 2, _SIZE / 2 - 2.5 * _NODE_R
    points = [
        (
            centre + radius * math.cos(2 * math.pi * i / graph.n_nodes - math.pi / 2),
            centre + radius * math.sin(2 * math.pi * i / graph.n_nodes - math.pi / 2),
        )
        for i in range(graph.n_nodes)
    ]
    marks = "".join(
        f'<marker id="arrow-{name}" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="6" markerHeight="6" '
        f'orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="{hue}"/></marker>'
        for name, (hue, _) in FAMILIES.items()
    )
    lines = []
    for edge in graph.edges:
        if edge.label == "UNRELATED":
            continue
        (x1, y1), (x2, y2) = points[edge.source], points[edge.target]
        length = math.hypot(x2 - x1, y2 - y1) or 1.0
        ux, uy = (x2 - x1) / length, (y2 - y1) / length
        # Offset sideways so the two directions of one pair stay apart.
        ox, oy = -uy * 4, ux * 4
        start = (x1 + ux * _NODE_R + ox, y1 + uy * _NODE_R + oy)
        end = (x2 - ux * _NODE_R + ox, y2 - uy * _NODE_R + oy)
        width = 3.5 if edge.label in HIGHLIGHTED else 1.5
        lines.append(
            f'<line x1="{start[0]:.1f}" y1="{start[1]:.1f}" x2="{end[0]:.1f}" y2="{end[1]:.1f}" '
            f'stroke="{colour(edge.label)}" stroke-width="{width}" '
            f'marker-end="url(#arrow-{family(edge.label)})">'
            f"<title>[{edge.source + 1}] -&gt; [{edge.target + 1}]: {escape(edge.label)}</title></line>"
        )
    nodes = "".join(
        f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{_NODE_R}" fill="#e3f2fd" stroke="#1565c0"/>'
        f'<text x="{x:.1f}" y="{y + 4:.1f}" text-anchor="middle" font-size="12">[{i + 1}]</text>'
        for i, (x, y) in enumerate(points)
    )
    return (
        f'<svg width="{_SIZE}" height="{_SIZE}" '
        f'role="img" aria-label="rhetorical graph"><defs>{marks}</defs>{"".join(lines)}{nodes}</svg>'
    )


def draw_graph(record: dict[str, Any]) -> str:
    graph = RhetoricalGraph.from_dict(record["graph"])
    legend = " ".join(
        f'<span style="color:{hue}">━ {escape(name)}</span>'
        for name, (hue, _) in FAMILIES.items()
        if name != "none"
    )
    parts = [
        f"<p>Built by <code>{escape(record['producer'])}</code> over {graph.n_nodes} chunks; UNRELATED "
        "pairs are not drawn; contradicts / contrasts are thick red.</p>"
    ]
    if record.get("fallback_reason"):
        parts.append(f'<p class="warn">Fallback: {escape(record["fallback_reason"])}</p>')
    parts += [graph_svg(graph), f"<p>{legend}</p>", _table(edge_rows(graph, record.get("not_predicted", [])))]
    return "\n".join(parts)


def draw_plan(record: dict[str, Any]) -> str:
    text = escape(record.get("text") or "") or "<i>No plan.</i>"
    return (
        f'<p>Written by <code>{escape(record.get("producer", ""))}</code></p><div class="answer">{text}</div>'
    )


def draw_markers(record: dict[str, Any]) -> str:
    rows = [
        {"from": f"[{i + 1}]", "to": f"[{j + 1}]", "marker": m} for i, j, m in record["pairs"] if m != "NONE"
    ]
    return f"<p>Markers chosen by <code>{escape(record['producer'])}</code></p>{_table(rows)}"


def draw_trajectory(value: dict[str, Any]) -> str:
    record = RoutingRecord.from_dict(value)
    parts = [f"<p>Router: <code>{escape(record.router)}</code>. {escape(record.reason)}</p>", legend_html()]
    for number, route in enumerate(record.routes, start=1):
        parts.append(
            f"<h3>Document {number}: {escape(route.doc_name or route.doc_id)} · "
            f"{route.calls} step(s) · stopped: {escape(route.stop_reason)}</h3>"
        )
        for step in route.steps:
            usable = "usable" if step.usable else "UNUSABLE"
            reply = escape(step.error or step.raw_reply or "(empty)")
            parts.append(
                f"<details><summary>Step {step.index + 1} · {usable} reply</summary>"
                f"{tree_html(route, step)}<pre>{reply}</pre></details>"
            )
    return "\n".join(parts)


def draw_selection(value: dict[str, Any]) -> str:
    record = SelectionRecord.from_dict(value)
    rows = [
        {
            "rank": rank,
            "node": v.node,
            "score": f"{v.score:.3f}",
            "kind": "leaf" if v.is_leaf else v.scope,
            "leaves added": ", ".join(str(a) for a in v.added) or "none",
            "text": v.preview,
        }
        for rank, v in enumerate(record.visits[:MAX_VISITS], start=1)
    ]
    more = len(record.visits) - MAX_VISITS
    tail = f"<p>… and {more} more nodes (in the JSON below).</p>" if more > 0 else ""
    return (
        f"<p>{escape(record.method)}: {record.words} of {record.budget} words selected, "
        f"{len(record.selected)} units. {escape(record.structure_reason)}</p>{_table(rows)}{tail}"
    )


REPORT_DRAWINGS: dict[str, Callable[[Any], str]] = {
    "rst_trees": draw_rst_trees,
    "rhetorical_graph": draw_graph,
    "plan": draw_plan,
    "discourse_markers": draw_markers,
    "trajectory": draw_trajectory,
    "discourse_selection": draw_selection,
}
