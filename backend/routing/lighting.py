"""Which content the router sees: initial lighting from retrieved passages, EXPAND, and the view.

Every heading is always shown; content is shown only when lit. A heading that holds content of
its own, none of it lit, is *collapsed*: the router may EXPAND it. The view is the indented
`id: text` outline the router reads; each node is one line with its whitespace collapsed, so a
paragraph cannot forge extra lines (a fake `12: ...` node) inside the view.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass

from backend.retrieval.search import Passage
from backend.routing.structure_tree import StructureTree

INDENT = "  "
COLLAPSED_MARK = " [collapsed]"


@dataclass(frozen=True)
class SubtreeView:
    """The rendered retrieval subtree and the ids each behaviour may name in it."""

    text: str
    visible: tuple[str, ...]
    collapsed: tuple[str, ...]
    expanded: tuple[str, ...]


def match_passages(
    tree: StructureTree, spans: Mapping[str, tuple[int, int]], passages: Sequence[Passage]
) -> list[str]:
    """Content nodes a passage covers: its source's character span overlaps the passage's span.

    The paper matches chunk text to nodes by edit distance; offsets from ingestion make the match
    exact here. A node whose source is the chunk itself (no-structure trees) matches by id.
    """
    matched = []
    for node_id in tree.content_ids():
        source = tree.node(node_id).source_id or ""
        span = spans.get(source)
        for passage in passages:
            if source == passage.chunk_id or (
                span is not None and span[0] < passage.end and passage.start < span[1]
            ):
                matched.append(node_id)
                break
    return matched


def initial_lighting(tree: StructureTree, matched: Iterable[str]) -> set[str]:
    """Light each matched node's content siblings, its content ancestors up to the nearest heading,
    and every content descendant of those siblings."""
    lit: set[str] = set()
    for node_id in matched:
        current = node_id
        while tree.is_content(current):
            lit.add(current)
            parent = tree.node(current).parent
            if parent is None or not tree.is_content(parent):
                break
            current = parent
        parent = tree.node(node_id).parent
        siblings = tree.node(parent).children if parent is not None else []
        for sibling in siblings:
            if tree.is_content(sibling):
                lit.update(i for i, _ in tree.preorder(sibling) if tree.is_content(i))
    return lit


def expand_lighting(tree: StructureTree, headings: Iterable[str]) -> set[str]:
    """What EXPAND lights: the content each heading holds itself (its subsections stay collapsed)."""
    lit: set[str] = set()
    for heading in headings:
        lit.update(tree.section_content(heading))
    return lit


def render_subtree(
    tree: StructureTree,
    lit: set[str],
    max_words: int | None = None,
    opened: Collection[str] = (),
) -> SubtreeView:
    """The router's view: headings always, lit content only, collapsed headings marked.

    Headings in `opened` were expanded earlier in this route; they are not offered again, so a
    router cannot bounce between two sections until the expansion limit.
    """
    lines: list[str] = []
    visible: list[str] = []
    collapsed: list[str] = []
    expanded: list[str] = []
    for node_id, depth in tree.preorder():
        node = tree.node(node_id)
        if node.type == "content":
            if node_id in lit and _ancestors_lit_or_structure(tree, node_id, lit):
                visible.append(node_id)
                lines.append(f"{INDENT * depth}{node_id}: {_one_line(node.text, max_words)}")
            continue
        own = tree.section_content(node_id)
        mark = ""
        if own and lit.intersection(own):
            expanded.append(node_id)
        elif own and node_id not in opened:
            collapsed.append(node_id)
            mark = COLLAPSED_MARK
        lines.append(f"{INDENT * depth}{node_id}: {_one_line(node.text, max_words)}{mark}")
    return SubtreeView("\n".join(lines), tuple(visible), tuple(collapsed), tuple(expanded))


def _ancestors_lit_or_structure(tree: StructureTree, node_id: str, lit: set[str]) -> bool:
    """Nested content shows only under shown content, so the outline never has gaps."""
    parent = tree.node(node_id).parent
    while parent is not None and tree.is_content(parent):
        if parent not in lit:
            return False
        parent = tree.node(parent).parent
    return True


def _one_line(text: str, max_words: int | None) -> str:
    words = text.split()
    if max_words is not None and len(words) > max_words:
        return " ".join(words[:max_words]) + " …"
    return " ".join(words)
