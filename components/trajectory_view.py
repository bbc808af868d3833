"""The routing trajectory viewer: step through how RDR2 routed each document.

For the chosen step it draws the tree as the router saw it, every node marked by state in
colour *and* a text mark (answered, shown, opened, collapsed, opened by this step), then the
router's raw reply (shown literally), the behaviours kept and the pieces dropped with reasons;
below, the passages finally read. `structure_tree_html` draws a document's tree on its own, with
no question, as collapsible sections. All document and model text is escaped.
"""

from __future__ import annotations

from html import escape
from typing import Any

import pandas as pd
import streamlit as st

from backend.pipelines import Answer
from backend.routing.pdf_headings import LAYOUT_PRODUCER
from backend.routing.structure_builders import FLAT_PRODUCER
from backend.routing.structure_tree import StructureTree
from backend.routing.trajectory import DocumentRoute, RoutingRecord, RoutingStep
from components.answer_structures import renderer
from components.safe_text import escape_markdown

PREVIEW_WORDS = 40
MAX_NODES = 1200
STATES: dict[str, tuple[str, str, str]] = {
    # state: (text mark, text colour, background)
    "answered": ("✔ ANSWERED", "#1b5e20", "#dcedc8"),
    "shown": ("● shown", "#1b1b1b", "transparent"),
    "expanding": ("⤵ EXPAND", "#0d47a1", "#bbdefb"),
    "opened": ("▾ open", "#0d47a1", "transparent"),
    "collapsed": ("▸ collapsed", "#616161", "#eeeeee"),
    "heading": ("▪ heading", "#1b1b1b", "transparent"),
}

STYLE = """
<style>
.route-tree { font: 13px/1.5 sans-serif; }
.route-tree .node { padding: 1px 4px; border-radius: 4px; margin: 1px 0; }
.route-tree .mark { font-size: 11px; font-weight: bold; margin-right: 6px; white-space: nowrap; }
.route-tree .nid { color: #777; margin-right: 4px; }
.route-tree .heading { font-weight: bold; }
.route-tree details > :not(summary) { margin-left: 18px; }
.route-tree summary { cursor: pointer; }
</style>
"""


def node_states(route: DocumentRoute, step: RoutingStep) -> dict[str, str]:
    """The state of every node the router saw at `step` (hidden content is absent)."""
    answered_before = {n for s in route.steps[: step.index] for n in s.answered}
    answered_now = set(step.answered) | answered_before
    expanding = {b["id"] for b in step.behaviours if b["kind"] == "expand"}
    states: dict[str, str] = {}
    for node_id in route.tree.structure_ids():
        if node_id in expanding:
            states[node_id] = "expanding"
        elif node_id in step.expanded:
            states[node_id] = "opened"
        elif node_id in step.collapsed:
            states[node_id] = "collapsed"
        else:
            states[node_id] = "heading"
    for node_id in step.visible:
        states[node_id] = "answered" if node_id in answered_now else "shown"
    return states


def _preview(text: str) -> str:
    words = text.split()
    return " ".join(words[:PREVIEW_WORDS]) + (" …" if len(words) > PREVIEW_WORDS else "")


def tree_html(route: DocumentRoute, step: RoutingStep) -> str:
    """The tree at `step` as escaped HTML, one row per node the router saw, indented by depth."""
    states = node_states(route, step)
    rows = []
    for node_id, depth in route.tree.preorder():
        state = states.get(node_id)
        if state is None:
            continue
        mark, colour, background = STATES[state]
        node = route.tree.node(node_id)
        kind = "heading" if node.type == "structure" else "content"
        rows.append(
            f'<div class="node {kind}" style="margin-left:{depth * 18}px;color:{colour};'
            f'background:{background}" data-state="{state}">'
            f'<span class="mark">{mark}</span><span class="nid">{escape(node_id)}:</span>'
            f"{escape(_preview(node.text))}</div>"
        )
    return f'{STYLE}<div class="route-tree">{"".join(rows)}</div>'


def tree_source(producer: str) -> str:
    """Where a tree's headings came from: PDF outline, layout cues, the document's headings, or none."""
    if producer == FLAT_PRODUCER:
        return "flat fallback: no headings found"
    if producer == LAYOUT_PRODUCER:
        return "PDF layout cues"
    if "outline" in producer:
        return "PDF outline"
    return "document headings"


def structure_tree_html(tree: StructureTree, open_depth: int = 1, max_nodes: int = MAX_NODES) -> str:
    """The whole tree, escaped: a node with children is a <details>, open when above `open_depth`.

    Headings and content carry different text marks (▪ heading, ¶ content) and every node its id,
    the one the router names. Past `max_nodes` nodes the rest is counted, not drawn.
    """
    parts: list[str] = []
    drawn = skipped = 0
    stack: list[tuple[str, int] | None] = [(tree.root, 0)]  # None closes a <details>
    while stack:
        item = stack.pop()
        if item is None:
            parts.append("</details>")
            continue
        node_id, depth = item
        if drawn >= max_nodes:
            skipped += sum(1 for _ in tree.preorder(node_id))
            continue
        drawn += 1
        node = tree.node(node_id)
        kind, mark = ("heading", "▪ heading") if node.type == "structure" else ("content", "¶ content")
        row = (
            f'<span class="mark">{mark}</span><span class="nid">{escape(node_id)}:</span>'
            f"{escape(_preview(node.text))}"
        )
        if not node.children:
            parts.append(f'<div class="node {kind}" data-node="{escape(node_id)}">{row}</div>')
            continue
        opened = " open" if depth < open_depth else ""
        parts.append(
            f'<details{opened} data-node="{escape(node_id)}"><summary class="node {kind}">{row}</summary>'
        )
        stack.append(None)
        stack.extend((child, depth + 1) for child in reversed(node.children))
    if skipped:
        parts.append(f'<div class="node">… {skipped} more nodes not drawn.</div>')
    return f'{STYLE}<div class="route-tree">{"".join(parts)}</div>'


def render_structure_tree(tree: StructureTree) -> None:
    """A document's routing tree without a question: where its headings came from, then every node."""
    headings = len(tree.structure_ids()) - 1  # the root is the title
    st.caption(
        f"Source: **{tree_source(tree.producer)}** (producer: {escape_markdown(tree.producer)}) · "
        f"{headings} headings, {len(tree.content_ids())} content nodes. Ids are the ones the router "
        "names; click a heading to open or close its section."
    )
    st.markdown(structure_tree_html(tree), unsafe_allow_html=True)


def _route_caption(route: DocumentRoute) -> str:
    return (
        f"Tree: {route.tree.producer} · router: {route.router} · {route.calls} router step(s), "
        f"{route.unusable_replies} unusable · stopped: {route.stop_reason}"
    )


def legend_html() -> str:
    """Every mark as drawn in the tree, so the legend matches it in glyph and colour."""
    items = "".join(
        f'<span class="node" style="color:{colour};background:{background}"><span class="mark">{mark}</span>'
        f"</span> "
        for mark, colour, background in STATES.values()
    )
    return f'{STYLE}<div class="route-tree">Marks: {items}</div>'


def _render_step(route: DocumentRoute, step: RoutingStep) -> None:
    st.markdown(legend_html(), unsafe_allow_html=True)
    st.markdown(tree_html(route, step), unsafe_allow_html=True)
    if step.error:
        st.error(escape_markdown(f"The router's model call failed: {step.error}"))
        return
    st.markdown("**Router reply (raw)**")
    st.code(step.raw_reply or "(empty)", language=None)
    cost = f" · {step.prompt_tokens} prompt tokens" if step.prompt_tokens else ""
    st.caption(f"{'usable' if step.usable else 'UNUSABLE'} reply · {step.latency_s:.2f} s{cost}")
    if step.behaviours:
        st.markdown("**Behaviours kept**")
        st.dataframe(pd.DataFrame(step.behaviours), hide_index=True)
    if step.refused:
        st.markdown("**Refused**: the router found nothing to answer with or open here.")
    if step.dropped:
        st.markdown("**Dropped from the reply**")
        st.dataframe(pd.DataFrame(step.dropped), hide_index=True)
    if step.lit_by_expand:
        st.caption(f"EXPAND lit nodes {', '.join(step.lit_by_expand)} for the next step.")


def _render_route(route: DocumentRoute, number: int, answer: Answer) -> None:
    st.markdown(f"**Document {number}: {escape_markdown(route.doc_name or route.doc_id)}**")
    st.caption(escape_markdown(_route_caption(route)))
    if not route.steps and route.stop_reason == "call failed":
        st.info("The router was not called: its model call failed earlier; the retrieved passages are read.")
    elif not route.steps:
        st.info("The router was not called: no retrieved paragraph matched and no section could be opened.")
    else:
        labels = [f"step {s.index + 1}" for s in route.steps]
        chosen = st.select_slider(
            "Step", options=labels, value=labels[0], key=f"trajectory_step_{number}_{route.doc_id}"
        )
        _render_step(route, route.steps[labels.index(chosen)])
    read = {p.chunk_id: n for n, p in enumerate(answer.passages, start=1)}
    if route.answered:
        st.markdown("**Passages routed from this document** (in document order)")
        answered = set(route.answered)
        for node_id in (i for i, _ in route.tree.preorder() if i in answered):
            node = route.tree.node(node_id)
            number_read = read.get(node.source_id or "")
            tag = f"[{number_read}] " if number_read else "(not read: did not fit) "
            st.markdown(f"{tag}node {escape_markdown(node_id)}: {escape_markdown(node.text)}")


@renderer("trajectory", "Routing trajectory")
def render_trajectory(value: dict[str, Any], answer: Answer) -> None:
    record = RoutingRecord.from_dict(value)
    st.caption(
        f"Router: {escape_markdown(record.router)}. {escape_markdown(record.reason)} "
        f"Expansions allowed: {record.max_expansions if record.allow_expand else 'off'} · refusal: "
        f"{'on' if record.allow_refuse else 'off'} · structure: {'on' if record.use_structure else 'off'}."
    )
    if record.router.startswith("offline router"):
        st.info(
            "Routed offline: the router's replies below were written by embedding similarity, not by a "
            "language model (the configured model cannot route)."
        )
    for number, route in enumerate(record.routes, start=1):
        with st.container(border=True):
            _render_route(route, number, answer)
    routed = sum(len(r.answered) for r in record.routes)
    st.markdown(
        f"**Passages finally read**: {len(answer.passages)} "
        f"({'routed paragraphs' if routed else 'the retrieved passages, as the router chose none'})."
    )
