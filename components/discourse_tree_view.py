"""Draws a retrieval tree as collapsible HTML, the document text with evidence marked, and the
`discourse_selection` record of an answer.

The tree is nested <details> elements (no script): each internal node shows its id, relation
and nuclearity (GUM class and the Disco-RAG name), depth, scope, who wrote its text and a
preview; leaves show their role (N/S) and text. Nodes that scored highest for a question carry
their rank and score, selected leaves a check mark, in colour *and* text. Large trees are drawn
from a chosen node and cut after a number of nodes, with a count of what was left out. Every
piece of document or model text is escaped, so document HTML never runs.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from html import escape
from typing import Any

import pandas as pd
import streamlit as st

from backend.discourse.labels import LABEL_SETS, to_disco_rag
from backend.pipelines import Answer
from backend.retrieval.discourse_tree import DiscourseTree
from backend.retrieval.selection_record import SelectionRecord
from components.answer_structures import renderer
from components.safe_text import escape_markdown

PREVIEW_WORDS = 24
MAX_NODES = 1200
OPEN_DEPTH = 2

STYLE = """
<style>
.disr-tree { font: 13px/1.45 sans-serif; max-height: 640px; overflow: auto; border: 1px solid #ddd;
  padding: 6px; }
.disr-tree details { margin-left: 14px; }
.disr-tree summary { cursor: pointer; }
.disr-tree .leaf { margin-left: 28px; }
.disr-tree .nid { color: #777; margin-right: 4px; }
.disr-tree .rel { color: #1f4e79; font-weight: bold; margin-right: 4px; }
.disr-tree .meta { color: #666; font-size: 11px; margin-right: 4px; }
.disr-tree .hit { background: #fff3c4; border-radius: 3px; padding: 0 3px; font-weight: bold; }
.disr-tree .sel { background: #dcedc8; border-radius: 3px; padding: 0 3px; font-weight: bold; }
.disr-text { font: 14px/1.6 serif; max-height: 520px; overflow: auto; border: 1px solid #ddd; padding: 8px;
  white-space: pre-wrap; }
.disr-text mark { background: #dcedc8; }
</style>
"""


def relation_label(relation: str | None, nuclearity: str | None) -> str:
    """ "elaboration (NS) · ELABORATION" for GUM classes; other labels as they are."""
    if relation is None:
        return ""
    shown = relation
    if relation in LABEL_SETS["gum-coarse"]:
        shown = f"{relation} · {to_disco_rag(relation)}"
    return f"{shown} ({nuclearity})" if nuclearity else shown


def _preview(tree: DiscourseTree, index: int) -> str:
    words = tree.text(index, max_words=PREVIEW_WORDS + 1).split()
    return " ".join(words[:PREVIEW_WORDS]) + (" …" if len(words) > PREVIEW_WORDS else "")


def _marks(index: int, hits: Mapping[int, tuple[int, float]], selected: set[int]) -> str:
    marks = []
    if index in hits:
        rank, score = hits[index]
        marks.append(f'<span class="hit">★ rank {rank} · {score:.3f}</span>')
    if index in selected:
        marks.append('<span class="sel">✔ selected</span>')
    return " ".join(marks)


def _open_nodes(tree: DiscourseTree, focus: set[int]) -> set[int]:
    """Ancestors of the focus nodes: opened so that every highlight is visible."""
    opened: set[int] = set()
    for index in focus:
        parent = tree.nodes[index].parent
        while parent is not None and parent not in opened:
            opened.add(parent)
            parent = tree.nodes[parent].parent
    return opened


def tree_html(
    tree: DiscourseTree,
    *,
    root: int | None = None,
    hits: Mapping[int, tuple[int, float]] | None = None,
    selected: set[int] | None = None,
    max_nodes: int = MAX_NODES,
) -> str:
    """Escaped, collapsible HTML of the tree under `root` (default: every root of the forest)."""
    hits = hits or {}
    selected = selected or set()
    opened = _open_nodes(tree, set(hits) | selected)
    starts = [root] if root is not None else list(tree.roots)
    base_depth = tree.nodes[starts[0]].depth if starts else 0
    parts: list[str] = []
    drawn = 0
    skipped = 0
    # explicit stack of ("open", index) / ("close", None) so deep trees need no recursion
    stack: list[tuple[str, int | None]] = [("open", i) for i in reversed(starts)]
    while stack:
        action, index = stack.pop()
        if action == "close":
            parts.append("</details>")
            continue
        assert index is not None
        node = tree.nodes[index]
        if drawn >= max_nodes:
            skipped += 1
            stack.extend(("open", c) for c in reversed(node.children))
            continue
        drawn += 1
        marks = _marks(index, hits, selected)
        if node.is_leaf:
            role = f"[{node.role}] " if node.role else ""
            parts.append(
                f'<div class="leaf" data-node="{index}"><span class="nid">#{index}</span>{escape(role)}'
                f"{marks} {escape(node.text or '')}</div>"
            )
            continue
        is_open = index in opened or node.depth - base_depth < OPEN_DEPTH
        span = f"{node.span[1] - node.span[0] + 1} leaves" if node.span else f"{len(node.children)} children"
        parts.append(
            f'<details{" open" if is_open else ""} data-node="{index}"><summary>'
            f'<span class="nid">#{index}</span>'
            f'<span class="rel">{escape(relation_label(node.relation, node.nuclearity))}</span>'
            f'<span class="meta">depth {node.depth} · {escape(node.scope)} · {span} · '
            f"{escape(node.producer)}</span> {marks} {escape(_preview(tree, index))}</summary>"
        )
        stack.append(("close", None))
        stack.extend(("open", c) for c in reversed(node.children))
    if skipped:
        parts.append(f'<div class="meta">… {skipped} more nodes not drawn; view a subtree to see them.</div>')
    return f'{STYLE}<div class="disr-tree">{"".join(parts)}</div>'


def text_html(text: str, spans: list[tuple[int, int]]) -> str:
    """The document text, escaped, with `spans` (character offsets) marked."""
    parts: list[str] = []
    position = 0
    for start, end in sorted(spans):
        start = max(start, position)
        if end <= start:
            continue
        parts.append(escape(text[position:start]))
        parts.append(f"<mark>{escape(text[start:end])}</mark>")
        position = end
    parts.append(escape(text[position:]))
    return f'{STYLE}<div class="disr-text">{"".join(parts)}</div>'


def visits_table(record: SelectionRecord, names: Callable[[str], str] = str) -> pd.DataFrame:
    """One row per node visited in ranking order, with the leaves it added."""
    return pd.DataFrame(
        [
            {
                "rank": rank,
                "document": names(v.tree_id),
                "node": v.node,
                "score": v.score,
                "kind": "leaf" if v.is_leaf else v.scope,
                "depth": v.depth,
                "relation": v.relation or "",
                "leaves added": ", ".join(str(a) for a in v.added) or "none (already used)",
                "text": v.preview,
            }
            for rank, v in enumerate(record.visits, start=1)
        ]
    )


@renderer("discourse_selection", "Tree retrieval")
def render_selection(value: dict[str, Any], answer: Answer) -> None:
    record = SelectionRecord.from_dict(value)
    st.caption(escape_markdown(record.structure_reason))
    k = f", subtree k = {record.subtree_k}" if record.subtree_k is not None else ""
    st.markdown(
        f"**{escape_markdown(record.method)}**: {record.words} of {record.budget} words selected{k}, "
        f"{len(record.selected)} units from {len(record.trees)} document(s)."
    )
    names = {t.tree_id: t.doc_name for t in record.trees}
    for tree in record.trees:
        producers = ", ".join(f"{escape_markdown(p)} × {n}" for p, n in tree.text_producers.items()) or "none"
        built = "built for this question" if tree.built_now else "from the cache"
        st.caption(
            f"{escape_markdown(tree.doc_name)}: shape by `{tree.structure_producer}`; "
            f"node texts: {producers}; {tree.nodes} nodes, {built}. Tree id `{tree.tree_id}`."
        )
    st.markdown("**Nodes in ranking order until the budget was met**")
    st.dataframe(visits_table(record, lambda t: names.get(t, t)), hide_index=True, width="stretch")
    if record.trees and st.button("Open the first document's tree in Explore", key="disr_open_explore"):
        st.session_state["explore_doc"] = record.trees[0].doc_id
        st.session_state["explore_method"] = record.method
        st.session_state["explore_question"] = answer.question
        st.switch_page("views/explore.py")
