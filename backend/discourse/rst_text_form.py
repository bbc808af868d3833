"""Compact, readable text forms of chunk trees, the rhetorical graph and marker pairs for prompts.

A tree is printed on one line in bracket form after its chunk number: each join shows its
relation, each part its role (N or S), each EDU its id (chunk.edu) and its first few words (the
full chunk is in the same prompt, and an indented outline with longer openings cost more tokens
than the chunk itself). Labels of trees built on GUM's classes are shown as the Disco-RAG
names, so every tree in a prompt speaks one vocabulary. The graph lists only related pairs;
everything else is said once to be UNRELATED, which keeps k(k-1) pairs to a few lines.
"""

from __future__ import annotations

from collections.abc import Sequence

from backend.discourse.labels import to_disco_rag
from backend.discourse.rhetorical_graph import RhetoricalGraph
from backend.discourse.rst_tree import RSTTree


def relation_name(tree: RSTTree, label: str) -> str:
    """The Disco-RAG name of a node's relation, whatever label set the tree uses."""
    return to_disco_rag(label) if tree.label_set == "gum-coarse" else label


def _leaf(tree: RSTTree, number: int, index: int, words: int) -> str:
    parts = tree.units[index].text.split()
    if not words:
        return f"{number}.{index + 1}"
    opening = " ".join(parts[:words]) + ("…" if len(parts) > words else "")
    return f'{number}.{index + 1} "{opening}"'


def tree_text(tree: RSTTree, number: int, words: int = 4) -> str:
    """The tree of chunk `number` on one line, e.g. `[2] ELABORATION(N 2.1 "…", S CAUSE(N 2.2, S 2.3))`.

    Each EDU shows its id (chunk.edu) and its first `words` words (0: the id alone). Chunk trees
    are small (a 256-token chunk has at most a few dozen units), so recursion depth is no concern.
    """
    roles = {"NS": ("N", "S"), "SN": ("S", "N"), "NN": ("N", "N")}
    spans = tree.by_span()

    def span_text(span: tuple[int, int]) -> str:
        if span[0] == span[1]:
            return _leaf(tree, number, span[0], words)
        node = spans[span]
        (left, right), (left_role, right_role) = node.child_spans, roles[node.nuclearity]
        inner = f"{left_role} {span_text(left)}, {right_role} {span_text(right)}"
        return f"{relation_name(tree, node.relation)}({inner})"

    return f"[{number}] {span_text((0, len(tree.units) - 1))}"


def trees_text(trees: Sequence[tuple[int, RSTTree]], words: int = 4) -> str:
    """Several chunk trees, one line each, after a one-line key."""
    key = (
        "Key: RELATION(part, part); N = nucleus (central), S = satellite (supporting); "
        "EDU ids are passage.unit with the unit's opening words."
    )
    return key + "\n" + "\n".join(tree_text(tree, number, words) for number, tree in trees)


def graph_text(graph: RhetoricalGraph, limit: int | None = None) -> str:
    """Related pairs as `[i] -> [j]: LABEL` (1-based) among the first `limit` chunks, the rest summarised."""
    n = graph.n_nodes if limit is None else min(limit, graph.n_nodes)
    related = [e for e in graph.edges if e.label != "UNRELATED" and e.source < n and e.target < n]
    total = n * (n - 1)
    if not related:
        return f"No related pairs: all {total} ordered pairs are UNRELATED."
    lines = [f"[{e.source + 1}] -> [{e.target + 1}]: {e.label}" for e in related]
    lines.append(f"The other {total - len(related)} ordered pairs are UNRELATED.")
    return "\n".join(lines)


def markers_text(markers: dict[tuple[int, int], str]) -> str:
    """Pairs with a discourse marker as `[i] -> [j]: marker` (1-based), NONE pairs summarised."""
    marked = sorted((pair, m) for pair, m in markers.items() if m != "NONE")
    lines = [f"[{i + 1}] -> [{j + 1}]: {marker}" for (i, j), marker in marked]
    rest = len(markers) - len(marked)
    if rest:
        lines.append(f"The other {rest} ordered pairs have no marker.")
    return "\n".join(lines) if lines else "No pairs."
