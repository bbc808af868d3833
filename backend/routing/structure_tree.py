"""The document structure tree RDR2 routes over: headings as structure nodes, passages as content.

Ids are short decimal strings in reading order ("0" is the title), because the router names
them in its replies and a small model copies "12" far more reliably than a long hash. Content
nodes keep `source_id` (the paragraph, or the chunk for the no-structure ablation) so a routed
node can be read back as a cited passage. Content may nest under content (a list item under
its lead-in paragraph); the builders here only make content leaves, hand-built trees may not.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

NodeType = Literal["structure", "content"]
STRUCTURE_SCHEMA_VERSION = 1
QASPER_SEPARATOR = " ::: "


@dataclass
class StructureNode:
    id: str
    type: NodeType
    text: str
    parent: str | None
    children: list[str] = field(default_factory=list)
    source_id: str | None = None


@dataclass
class StructureTree:
    """One document's tree; `producer` says what the headings came from."""

    doc_id: str
    root: str
    nodes: dict[str, StructureNode]
    producer: str

    def node(self, node_id: str) -> StructureNode:
        return self.nodes[node_id]

    def is_content(self, node_id: str) -> bool:
        return self.nodes[node_id].type == "content"

    def preorder(self, start: str | None = None) -> Iterator[tuple[str, int]]:
        """(id, depth) in reading order from `start` (default the root)."""
        stack = [(start or self.root, 0)]
        while stack:
            node_id, depth = stack.pop()
            yield node_id, depth
            stack.extend((c, depth + 1) for c in reversed(self.nodes[node_id].children))

    def content_ids(self) -> list[str]:
        return [i for i, _ in self.preorder() if self.is_content(i)]

    def structure_ids(self) -> list[str]:
        return [i for i, _ in self.preorder() if not self.is_content(i)]

    def section_content(self, node_id: str) -> list[str]:
        """The content a heading holds itself: its content children and their content descendants."""
        found: list[str] = []
        for child in self.nodes[node_id].children:
            if self.is_content(child):
                found.extend(i for i, _ in self.preorder(child) if self.is_content(i))
        return found

    def heading_of(self, node_id: str) -> str:
        """The nearest structure ancestor of a node (a structure node is its own)."""
        current = node_id
        while self.is_content(current):
            parent = self.nodes[current].parent
            if parent is None:
                break
            current = parent
        return current

    def path(self, node_id: str) -> list[str]:
        """Ids from the root down to `node_id`."""
        chain = [node_id]
        while self.nodes[chain[-1]].parent is not None:
            chain.append(self.nodes[chain[-1]].parent)  # type: ignore[arg-type]
        return chain[::-1]

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema_version": STRUCTURE_SCHEMA_VERSION,
            "doc_id": self.doc_id,
            "root": self.root,
            "producer": self.producer,
            "nodes": [vars(n) | {"children": list(n.children)} for n in self.nodes.values()],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> StructureTree:
        if data.get("schema_version") != STRUCTURE_SCHEMA_VERSION:
            raise ValueError(f"structure tree schema {data.get('schema_version')!r}")
        nodes = {n["id"]: StructureNode(**n) for n in data["nodes"]}
        tree = cls(data["doc_id"], data["root"], nodes, data["producer"])
        tree.validate()
        return tree

    def validate(self) -> None:
        """Raise ValueError unless this is one rooted tree with a structure root and linked content."""
        if self.root not in self.nodes or self.nodes[self.root].parent is not None:
            raise ValueError("the root must exist and have no parent")
        if self.is_content(self.root):
            raise ValueError("the root is the title, a structure node")
        for node in self.nodes.values():
            if node.type not in ("structure", "content"):
                raise ValueError(f"{node.id}: unknown node type {node.type!r}")
            if node.id != self.root and node.parent not in self.nodes:
                raise ValueError(f"{node.id}: parent {node.parent!r} does not exist")
            if node.type == "content" and node.source_id is None:
                raise ValueError(f"{node.id}: a content node needs a source")
            for child in node.children:
                if child not in self.nodes or self.nodes[child].parent != node.id:
                    raise ValueError(f"{node.id}: child {child!r} does not point back")
                if node.type == "content" and not self.is_content(child):
                    raise ValueError(f"{node.id}: a heading cannot sit under content")
        seen = [i for i, _ in self.preorder()]
        if len(seen) != len(set(seen)) or len(seen) != len(self.nodes):
            raise ValueError("nodes are shared, cyclic or unreachable from the root")


class TreeBuilder:
    """Appends nodes in reading order, nesting headings by level like an outline."""

    def __init__(self, doc_id: str, title: str, producer: str) -> None:
        self.tree = StructureTree(doc_id, "0", {"0": StructureNode("0", "structure", title, None)}, producer)
        self._open: list[tuple[int, str, str]] = []  # (level, node id, heading text)

    def _add(self, node_type: NodeType, text: str, parent: str, source_id: str | None) -> str:
        node_id = str(len(self.tree.nodes))
        self.tree.nodes[node_id] = StructureNode(node_id, node_type, text, parent, source_id=source_id)
        self.tree.nodes[parent].children.append(node_id)
        return node_id

    def heading(self, text: str, level: int) -> str:
        """Open a heading at `level` (1 = top); deeper open headings close first."""
        while self._open and self._open[-1][0] >= level:
            self._open.pop()
        parent = self._open[-1][1] if self._open else self.tree.root
        node_id = self._add("structure", text, parent, None)
        self._open.append((level, node_id, text))
        return node_id

    def qasper_heading(self, name: str, base_level: int = 1) -> str:
        """Open a section named "A ::: B ::: C" as C nested under B under A, reusing open ancestors."""
        parts = [p.strip() for p in name.split(QASPER_SEPARATOR.strip())]
        parts = [p for p in parts if p] or [name.strip() or "Untitled section"]
        node_id = ""
        for depth, part in enumerate(parts):
            level = base_level + depth
            reuse = next((o for o in self._open if o[0] == level and o[2] == part), None)
            is_ancestor = reuse is not None and depth < len(parts) - 1
            node_id = reuse[1] if is_ancestor and reuse else self.heading(part, level)
        return node_id

    def content(self, text: str, source_id: str, parent: str | None = None) -> str:
        """Add content under `parent`, by default the innermost open heading."""
        if parent is None:
            parent = self._open[-1][1] if self._open else self.tree.root
        return self._add("content", text, parent, source_id)

    def build(self) -> StructureTree:
        self.tree.validate()
        return self.tree
