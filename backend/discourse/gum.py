"""GUM (.dis EDU trees + CoNLL-U) -> sentence-level binary RST trees, per paragraph and per document.

Conversion: EDUs are mapped to sentences by walking the CoNLL-U words token by token. For a
range of sentences the split is the sentence boundary whose lowest common ancestor (LCA) in the
EDU tree is highest (closest to the root); the node takes its nuclearity and relation from that
LCA (the satellite's relation, or the shared one for N-N). Applied recursively this yields the
gold tree whenever sentences form subtrees, and a tree over the sentences when they do not (a
sentence split across two subtrees, or a paragraph that is not a single subtree). The same rule
over paragraph boundaries gives the document tree over paragraphs, and over any EDU tree (an
LLM's) projects it to sentences (`project_tree`).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from backend.discourse.labels import coarse_relation, from_disco_rag
from backend.discourse.rst_tree import RSTNode, RSTTree, Unit

DEFAULT_GUM_DIR = Path("../shared/data/gum")
GOLD_PRODUCER = "gum-gold-sentence"
_TOKEN = re.compile(r"_!(.*?)_!|\(|\)|[^\s()]+", re.S)


@dataclass(frozen=True)
class _Node:
    """EDU-tree node; `start`/`end` are 0-based EDU indices."""

    role: str
    relation: str
    start: int
    end: int
    text: str = ""
    children: tuple[_Node, ...] = ()


@dataclass
class GumDocument:
    """One GUM document as sentences, paragraphs and gold sentence-level trees."""

    doc_id: str
    sentences: list[str]
    paragraph_starts: list[int]
    document_tree: RSTTree
    """Gold tree over all sentences, ignoring paragraph boundaries."""
    paragraph_trees: list[RSTTree]
    """Gold tree over each paragraph's sentences (LCA rule inside the paragraph)."""
    paragraphs_tree: RSTTree
    """Gold tree whose leaves are the paragraphs (LCA rule over paragraph boundaries)."""

    def paragraphs(self) -> list[list[str]]:
        bounds = [*self.paragraph_starts, len(self.sentences)]
        return [self.sentences[a:b] for a, b in itertools.pairwise(bounds)]


@dataclass
class GumSplit:
    documents: list[GumDocument] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)
    """(document id, reason) for every document that could not be aligned."""


def parse_dis(text: str) -> _Node:
    """Read a GUM .dis lisp tree; leaves carry their EDU text."""
    tokens = [m.group(0) if m.group(1) is None else ("TEXT", m.group(1)) for m in _TOKEN.finditer(text)]
    pos = 0

    def read() -> _Node:
        nonlocal pos
        assert tokens[pos] == "("
        role, pos = tokens[pos + 1], pos + 2
        start = end = -1
        relation, body, children = "", "", []
        while tokens[pos] != ")":
            if tokens[pos] == "(" and tokens[pos + 1] in ("span", "leaf", "rel2par", "text"):
                key = tokens[pos + 1]
                if key == "span":
                    start, end, pos = int(tokens[pos + 2]) - 1, int(tokens[pos + 3]) - 1, pos + 5
                elif key == "leaf":
                    start = end = int(tokens[pos + 2]) - 1
                    pos += 4
                elif key == "rel2par":
                    relation, pos = tokens[pos + 2], pos + 4
                else:
                    body, pos = tokens[pos + 2][1], pos + 4
            else:
                children.append(read())
        pos += 1
        return _Node(role, relation, start, end, body, tuple(children))

    return read()


def read_conllu(path: Path) -> tuple[list[str], list[list[str]], list[int]]:
    """Sentence texts, their word forms (no multi-word or empty-node lines), paragraph starts."""
    texts: list[str] = []
    words: list[list[str]] = []
    starts: list[int] = []
    pending_par = False
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("# newpar") and not line.startswith("# newpar_"):
            pending_par = True
        elif line.startswith("# text = "):
            if pending_par or not texts:
                starts.append(len(texts))
            pending_par = False
            texts.append(line[len("# text = ") :])
            words.append([])
        elif line and line[0].isdigit():
            cols = line.split("\t")
            if cols[0].isdigit():
                words[-1].append(cols[1])
    return texts, words, starts


def _all_nodes(root: _Node) -> list[_Node]:
    """Pre-order, without recursion."""
    out, todo = [], [root]
    while todo:
        node = todo.pop()
        out.append(node)
        todo.extend(reversed(node.children))
    return out


def _leaves(root: _Node) -> list[_Node]:
    return [node for node in _all_nodes(root) if not node.children]


def _split_table(root: _Node) -> dict[int, tuple[int, _Node]]:
    """EDU boundary e|e+1 -> (depth, LCA node): the node whose left child ends at EDU e."""
    table: dict[int, tuple[int, _Node]] = {}
    todo = [(root, 0)]
    while todo:
        node, depth = todo.pop()
        if node.children:
            table[node.children[0].end] = (depth, node)
            todo.extend((child, depth + 1) for child in node.children)
    return table


def _label(lca: _Node) -> tuple[str, str]:
    left, right = lca.children
    nuclearity = {("Nucleus", "Satellite"): "NS", ("Satellite", "Nucleus"): "SN"}.get(
        (left.role, right.role), "NN"
    )
    relation = right.relation if nuclearity == "NS" else left.relation
    return nuclearity, coarse_relation(relation)


Boundary = tuple[int, tuple[str, str]]
"""(depth of the LCA, (nuclearity, relation) of the LCA) at the boundary between two units."""


def _lca_tree(units: list[Unit], boundaries: Sequence[Boundary], producer: str) -> RSTTree:
    """Tree over units where boundaries[i] describes the LCA between unit i and i+1 (the rule above)."""
    nodes: list[RSTNode] = []
    todo = [(0, len(units) - 1)]
    while todo:
        start, end = todo.pop()
        if start == end:
            continue
        split = min(range(start, end), key=lambda b: (boundaries[b][0], b))
        nodes.append(RSTNode(start, split, end, *boundaries[split][1]))
        todo += [(start, split), (split + 1, end)]
    return RSTTree(units, nodes, producer)


def project_tree(tree: RSTTree, ends: Sequence[int | None], units: list[Unit], producer: str) -> RSTTree:
    """`tree` over EDUs -> a tree over coarser `units` (sentences) by the same LCA rule as the gold.

    `ends[i]` is the EDU boundary b (between EDUs b and b+1) where unit i ends, or None where unit i
    ends inside an EDU: such boundaries have no LCA, so they split last, labelled NN joint (no claim).
    A Disco-RAG tree's relations are mapped back to GUM coarse classes (`labels.from_disco_rag`).
    """
    relation = from_disco_rag if tree.label_set == "disco-rag-intra" else str
    spans = tree.by_span()
    by_split: dict[int, Boundary] = {}
    todo = [((0, len(tree.units) - 1), 0)]
    while todo:
        span, depth = todo.pop()
        if (node := spans.get(span)) is not None:
            by_split[node.split] = (depth, (node.nuclearity, relation(node.relation)))
            todo += [(child, depth + 1) for child in node.child_spans]
    inside: Boundary = (len(tree.units), ("NN", "joint"))
    return _lca_tree(units, [inside if b is None else by_split[b] for b in ends], producer)


def _align(edus: list[_Node], words: list[list[str]]) -> list[int] | str:
    """Index of the last EDU of each sentence, or the reason alignment failed."""
    flat = [(s, w) for s, sent in enumerate(words) for w in sent]
    last_edu = [-1] * len(words)
    pos = 0
    for e, edu in enumerate(edus):
        tokens = edu.text.split()
        if [w for _, w in flat[pos : pos + len(tokens)]] != tokens:
            return f"EDU {e + 1} tokens do not match the CoNLL-U words at word {pos}"
        sents = {s for s, _ in flat[pos : pos + len(tokens)]}
        if len(sents) != 1:
            return f"EDU {e + 1} crosses a sentence boundary"
        last_edu[sents.pop()] = e
        pos += len(tokens)
    if pos != len(flat) or -1 in last_edu:
        return "EDUs and CoNLL-U words differ in length"
    return last_edu


def convert(doc_id: str, dis_text: str, conllu_path: Path) -> GumDocument | str:
    """One document, or the reason it cannot be aligned."""
    root = parse_dis(dis_text)
    if any(len(node.children) not in (0, 2) for node in _all_nodes(root)):
        return "the EDU tree is not binary"
    texts, words, starts = read_conllu(conllu_path)
    last_edu = _align(_leaves(root), words)
    if isinstance(last_edu, str):
        return last_edu
    table = _split_table(root)
    units = [Unit(t) for t in texts]
    sent_bounds = [(depth, _label(lca)) for depth, lca in (table[last_edu[s]] for s in range(len(texts) - 1))]
    ends = [*starts[1:], len(texts)]
    paragraph_trees = [
        _lca_tree(units[a:b], sent_bounds[a : b - 1], GOLD_PRODUCER)
        for a, b in zip(starts, ends, strict=True)
    ]
    par_units = [Unit(" ".join(texts[a:b])) for a, b in zip(starts, ends, strict=True)]
    par_bounds = [sent_bounds[b - 1] for b in ends[:-1]]
    return GumDocument(
        doc_id,
        texts,
        starts,
        _lca_tree(units, sent_bounds, GOLD_PRODUCER),
        paragraph_trees,
        _lca_tree(par_units, par_bounds, GOLD_PRODUCER),
    )


def load_split(split: str, gum_dir: Path = DEFAULT_GUM_DIR) -> GumSplit:
    """All documents of `split` ("train" or "dev"); unalignable ones are listed in `skipped`."""
    rst_dir = Path(gum_dir) / split / "rst"
    if not rst_dir.is_dir():
        raise FileNotFoundError(f"No GUM split at {rst_dir}; pass --gum-dir pointing at the gum folder")
    out = GumSplit()
    for dis_path in sorted(rst_dir.glob("*.dis")):
        conllu = Path(gum_dir) / split / "conllu" / f"{dis_path.stem}.conllu"
        if not conllu.exists():
            out.skipped.append((dis_path.stem, "no CoNLL-U file"))
            continue
        result = convert(dis_path.stem, dis_path.read_text(encoding="utf-8"), conllu)
        if isinstance(result, str):
            out.skipped.append((dis_path.stem, result))
        else:
            out.documents.append(result)
    return out
