"""The retrieval tree of one document: leaves are document units, internal nodes carry text.

One dataclass serves DISRetrieval's integrated discourse tree, the Bisection tree, the RAPTOR
cluster tree and the flat baselines (a forest of leaves with no internal node). Leaves come
first, in document order, so a node's leaf span is a pair of node indices; internal nodes
follow, each after its children, so a pass in index order is bottom-up. A merged node stores
no text (its text is its children's, joined), which keeps a 50,000-word tree small; summaries
are stored. Every node records who produced its text, and the tree who produced its shape.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from backend.errors import MalformedOutputError

SCHEMA_VERSION = 1
MERGE = "merge"
DOCUMENT_TEXT = "document text"


@dataclass(frozen=True)
class DiscourseNode:
    """One node; `span` is (first leaf, last leaf), or None when its leaves are not contiguous."""

    index: int
    parent: int | None
    children: tuple[int, ...]
    depth: int
    span: tuple[int, int] | None
    start_char: int
    end_char: int
    producer: str
    """Who wrote the text: "document text", "merge", "summary:<model>", or a fallback note."""
    text: str | None = None
    scope: str = "sentence"
    """sentence / chunk (leaves); paragraph / document (DISRetrieval); bisection; cluster (RAPTOR)."""
    relation: str | None = None
    nuclearity: str | None = None
    role: str | None = None
    """This node's role under its parent in a discourse tree: "N" (nucleus) or "S" (satellite)."""
    unit_id: str | None = None
    """The sentence id of a sentence leaf."""

    @property
    def is_leaf(self) -> bool:
        return not self.children


@dataclass
class DiscourseTree:
    """A validated forest over document units; `roots` is one node for a tree, every leaf for flat."""

    tree_id: str
    doc_id: str
    method: str
    nodes: list[DiscourseNode]
    roots: tuple[int, ...]
    structure_producer: str
    metadata: dict[str, Any] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.validate()

    @property
    def leaf_count(self) -> int:
        return sum(1 for n in self.nodes if n.is_leaf)

    def node_id(self, index: int) -> str:
        return f"{self.tree_id}:{index}"

    def leaves_of(self, index: int) -> list[int]:
        """Leaf indices under `index`, in document order."""
        node = self.nodes[index]
        if node.span is not None:
            return list(range(node.span[0], node.span[1] + 1))
        found: list[int] = []
        stack = [index]
        while stack:
            current = self.nodes[stack.pop()]
            if current.is_leaf:
                found.append(current.index)
            stack.extend(current.children)
        return sorted(found)

    def pieces(self, index: int) -> Iterator[str]:
        """The stored texts that make up node `index`'s text, left to right (merges are expanded)."""
        stack = [index]
        while stack:
            node = self.nodes[stack.pop()]
            if node.text is not None:
                yield node.text
            else:
                stack.extend(reversed(node.children))

    def text(self, index: int, max_words: int | None = None) -> str:
        """A node's text; with `max_words`, only its first words (what a length-limited encoder reads)."""
        if max_words is None:
            return " ".join(self.pieces(index))
        words: list[str] = []
        for piece in self.pieces(index):
            words.extend(piece.split()[: max_words - len(words)])
            if len(words) >= max_words:
                break
        return " ".join(words)

    def word_counts(self) -> list[int]:
        """Words of every node's (merged or stored) text, computed bottom-up in one pass."""
        counts = [0] * len(self.nodes)
        for node in self.nodes:
            counts[node.index] = (
                len(node.text.split()) if node.text is not None else sum(counts[c] for c in node.children)
            )
        return counts

    def heights(self) -> list[int]:
        """0 for leaves, 1 + the tallest child otherwise."""
        heights = [0] * len(self.nodes)
        for node in self.nodes:
            if node.children:
                heights[node.index] = 1 + max(heights[c] for c in node.children)
        return heights

    def with_nodes(self, nodes: list[DiscourseNode], **changes: Any) -> DiscourseTree:
        """A copy with new node texts/producers (same shape), re-validated."""
        return replace(self, nodes=nodes, **changes)

    def producers(self) -> dict[str, int]:
        """How many internal nodes each text producer wrote (what the UI and reports show)."""
        counts: dict[str, int] = {}
        for node in self.nodes:
            if not node.is_leaf:
                counts[node.producer] = counts.get(node.producer, 0) + 1
        return counts

    def validate(self) -> None:
        """Raise MalformedOutputError unless leaves come first and every link, span and depth agrees."""
        n = len(self.nodes)
        if n == 0:
            raise MalformedOutputError(
                "A retrieval tree needs at least one node.", "Build it from a document."
            )
        leaves = sum(1 for node in self.nodes if node.is_leaf)
        for position, node in enumerate(self.nodes):
            if node.index != position:
                raise MalformedOutputError(f"Node {position} says it is {node.index}.", "Rebuild the tree.")
            if node.is_leaf != (position < leaves):
                raise MalformedOutputError(
                    f"Node {position}: leaves must come first, internal nodes after.", "Rebuild the tree."
                )
            if node.is_leaf and node.text is None:
                raise MalformedOutputError(f"Leaf {position} has no text.", "Rebuild the tree.")
            self._check_links(node)
        reached = self._check_roots()
        if reached != n:
            raise MalformedOutputError(f"{n - reached} nodes hang outside the tree.", "Rebuild the tree.")

    def _check_links(self, node: DiscourseNode) -> None:
        n = len(self.nodes)
        for child in node.children:
            if not 0 <= child < node.index or self.nodes[child].parent != node.index:
                raise MalformedOutputError(
                    f"Node {node.index}: child {child} is missing, later, or points elsewhere.",
                    "Children must precede their parent and name it.",
                )
            if self.nodes[child].depth != node.depth + 1:
                raise MalformedOutputError(f"Node {child}: wrong depth.", "Rebuild the tree.")
        if node.parent is not None and not node.index < node.parent < n:
            raise MalformedOutputError(f"Node {node.index}: parent {node.parent} is invalid.", "Rebuild.")
        if node.span is not None:
            expected = (node.index, node.index)
            if node.children:
                spans = [self.nodes[c].span for c in node.children]
                if any(s is None for s in spans) or any(
                    a[1] + 1 != b[0]
                    for a, b in itertools.pairwise(spans)  # type: ignore[index]
                ):
                    raise MalformedOutputError(
                        f"Node {node.index}: children are not adjacent spans.", "Rebuild the tree."
                    )
                expected = (spans[0][0], spans[-1][1])  # type: ignore[index]
            if node.span != expected:
                raise MalformedOutputError(
                    f"Node {node.index}: span {node.span} should be {expected}.", "Rebuild the tree."
                )

    def _check_roots(self) -> int:
        reached = 0
        for root in self.roots:
            if not 0 <= root < len(self.nodes) or self.nodes[root].parent is not None:
                raise MalformedOutputError(f"Root {root} is not a parentless node.", "Rebuild the tree.")
            if self.nodes[root].depth != 0:
                raise MalformedOutputError(f"Root {root} must have depth 0.", "Rebuild the tree.")
            stack = [root]
            while stack:
                reached += 1
                stack.extend(self.nodes[stack.pop()].children)
        if len(set(self.roots)) != len(self.roots):
            raise MalformedOutputError("A root is listed twice.", "Rebuild the tree.")
        return reached

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema_version": SCHEMA_VERSION,
            "tree_id": self.tree_id,
            "doc_id": self.doc_id,
            "method": self.method,
            "roots": list(self.roots),
            "structure_producer": self.structure_producer,
            "metadata": dict(self.metadata),
            "warnings": list(self.warnings),
            "nodes": [_node_dict(node) for node in self.nodes],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> DiscourseTree:
        """Rebuild and validate; anything malformed raises MalformedOutputError."""
        if data.get("schema_version") != SCHEMA_VERSION:
            raise MalformedOutputError(
                f"Retrieval tree schema {data.get('schema_version')!r} is not {SCHEMA_VERSION}.",
                "Rebuild the tree with this version of the app.",
            )
        try:
            nodes = [
                DiscourseNode(
                    **{
                        **raw,
                        "children": tuple(int(c) for c in raw["children"]),
                        "span": tuple(raw["span"]) if raw.get("span") is not None else None,
                    }
                )
                for raw in data["nodes"]
            ]
            return cls(
                tree_id=str(data["tree_id"]),
                doc_id=str(data["doc_id"]),
                method=str(data["method"]),
                nodes=nodes,
                roots=tuple(int(r) for r in data["roots"]),
                structure_producer=str(data["structure_producer"]),
                metadata=dict(data.get("metadata", {})),
                warnings=[str(w) for w in data.get("warnings", [])],
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise MalformedOutputError(
                f"Retrieval tree dict is incomplete: {exc!r}.", "Rebuild it."
            ) from None


def _node_dict(node: DiscourseNode) -> dict[str, Any]:
    data = asdict(node)
    data["children"] = list(node.children)
    data["span"] = list(node.span) if node.span is not None else None
    return data


def depths_from_parents(parents: list[int | None]) -> list[int]:
    """Depths when every parent index is larger than its child's (the order builders create nodes in)."""
    depths = [0] * len(parents)
    for index in range(len(parents) - 1, -1, -1):
        parent = parents[index]
        if parent is not None:
            depths[index] = depths[parent] + 1
    return depths


_ROLES = {"NS": ("N", "S"), "SN": ("S", "N"), "NN": ("N", "N")}


@dataclass
class _Draft:
    children: tuple[int, ...]
    span: tuple[int, int] | None
    start_char: int
    end_char: int
    scope: str
    text: str | None
    producer: str
    relation: str | None = None
    nuclearity: str | None = None
    unit_id: str | None = None
    role: str | None = None
    parent: int | None = None


class TreeDraft:
    """Builds a tree node by node: every leaf first, then each internal node after its children."""

    def __init__(self) -> None:
        self._drafts: list[_Draft] = []
        self._internal = False

    def __len__(self) -> int:
        return len(self._drafts)

    def leaf(self, text: str, start: int, end: int, scope: str, unit_id: str | None = None) -> int:
        if self._internal:
            raise ValueError("add every leaf before the first internal node")
        index = len(self._drafts)
        self._drafts.append(
            _Draft((), (index, index), start, end, scope, text, DOCUMENT_TEXT, unit_id=unit_id)
        )
        return index

    def join(
        self,
        children: tuple[int, ...],
        scope: str,
        relation: str | None = None,
        nuclearity: str | None = None,
        text: str | None = None,
        producer: str = MERGE,
    ) -> int:
        """A parent over `children` (in document order for contiguous trees); returns its index."""
        if not children:
            raise ValueError("an internal node needs children")
        self._internal = True
        index = len(self._drafts)
        kids = [self._drafts[c] for c in children]
        spans = [k.span for k in kids]
        contiguous = all(s is not None for s in spans) and all(
            a[1] + 1 == b[0]  # type: ignore[index]
            for a, b in itertools.pairwise(spans)
        )
        span = (spans[0][0], spans[-1][1]) if contiguous else None  # type: ignore[index]
        roles = _ROLES.get(nuclearity or "", (None,) * len(children))
        for child, kid in enumerate(kids):
            if kid.parent is not None:
                raise ValueError(f"node {children[child]} already has a parent")
            kid.parent = index
            kid.role = roles[child] if len(roles) == len(children) else None
        self._drafts.append(
            _Draft(
                tuple(children),
                span,
                min(k.start_char for k in kids),
                max(k.end_char for k in kids),
                scope,
                text,
                producer,
                relation,
                nuclearity,
            )
        )
        return index

    def finish(
        self, tree_id: str, doc_id: str, method: str, structure_producer: str, metadata: dict[str, Any]
    ) -> DiscourseTree:
        parents = [d.parent for d in self._drafts]
        depths = depths_from_parents(parents)
        nodes = [
            DiscourseNode(
                index=i,
                parent=d.parent,
                children=d.children,
                depth=depths[i],
                span=d.span,
                start_char=d.start_char,
                end_char=d.end_char,
                producer=d.producer,
                text=d.text,
                scope=d.scope,
                relation=d.relation,
                nuclearity=d.nuclearity,
                role=d.role,
                unit_id=d.unit_id,
            )
            for i, d in enumerate(self._drafts)
        ]
        roots = tuple(i for i, d in enumerate(self._drafts) if d.parent is None)
        return DiscourseTree(tree_id, doc_id, method, nodes, roots, structure_producer, metadata)
