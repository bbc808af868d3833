"""The heading tree of a document: title root, headings as structure nodes, paragraphs as content.

RDR2 routes over this tree, so it must always be a valid tree: one root, every parent exists,
children lists agree with parent links, content nodes are leaves that point at a paragraph.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

NodeKind = Literal["title", "heading", "content"]
TREE_SCHEMA_VERSION = 1


@dataclass
class TreeNode:
    id: str
    kind: NodeKind
    text: str
    level: int
    parent: str | None
    children: list[str] = field(default_factory=list)
    paragraph_id: str | None = None


@dataclass
class DocumentTree:
    root: str
    nodes: dict[str, TreeNode]

    def node(self, node_id: str) -> TreeNode:
        return self.nodes[node_id]

    def heading_count(self) -> int:
        return sum(1 for n in self.nodes.values() if n.kind == "heading")

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema_version": TREE_SCHEMA_VERSION,
            "root": self.root,
            "nodes": [vars(n) | {"children": list(n.children)} for n in self.nodes.values()],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> DocumentTree:
        if data.get("schema_version") != TREE_SCHEMA_VERSION:
            raise ValueError(f"tree schema {data.get('schema_version')!r}, expected {TREE_SCHEMA_VERSION}")
        nodes = {n["id"]: TreeNode(**n) for n in data["nodes"]}
        tree = cls(root=data["root"], nodes=nodes)
        tree.validate()
        return tree

    def validate(self) -> None:
        """Raise ValueError unless this is a single rooted tree with consistent links."""
        if self.root not in self.nodes:
            raise ValueError(f"root {self.root!r} is not a node")
        root = self.nodes[self.root]
        if root.parent is not None or root.kind != "title":
            raise ValueError("the root must be the title node and have no parent")
        for node in self.nodes.values():
            if node.id != self.root and node.parent not in self.nodes:
                raise ValueError(f"{node.id}: parent {node.parent!r} does not exist")
            for child in node.children:
                if child not in self.nodes or self.nodes[child].parent != node.id:
                    raise ValueError(f"{node.id}: child {child!r} does not point back")
            if node.kind == "content" and (node.children or node.paragraph_id is None):
                raise ValueError(f"{node.id}: a content node is a leaf with a paragraph")
        seen: set[str] = set()
        stack = [self.root]
        while stack:
            current = stack.pop()
            if current in seen:
                raise ValueError(f"{current} is reachable twice (cycle or shared child)")
            seen.add(current)
            stack.extend(self.nodes[current].children)
        if len(seen) != len(self.nodes):
            raise ValueError(f"{len(self.nodes) - len(seen)} nodes are not reachable from the root")
