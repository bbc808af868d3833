"""Turn loader blocks into a `Document`: one text, offsets, stable ids, chunks and heading tree.

Every format goes through here, so ids and structure follow one rule set: blocks are joined
with blank lines (headings included, so a citation can show them), ids are the document id
plus the unit's position, and the tree nests headings by level under a title root.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from backend.ingest.chunking import DEFAULT_CHUNK_TOKENS, CountTokens, chunk_sentences
from backend.ingest.document import Document, Paragraph, Sentence
from backend.ingest.heading_tree import DocumentTree, NodeKind, TreeNode
from backend.ingest.loaded import LoadedDocument, collapse_whitespace, display_name
from backend.ingest.segment import sentence_spans

BLOCK_SEPARATOR = "\n\n"


@dataclass
class _Open:
    """A heading whose section is still running while later blocks are read."""

    level: int
    node_id: str
    text: str


@dataclass
class _Builder:
    doc_id: str
    root_id: str
    nodes: dict[str, TreeNode]
    open_headings: list[_Open] = field(default_factory=list)

    def add_node(self, kind: NodeKind, text: str, paragraph_id: str | None = None) -> TreeNode:
        parent = self.open_headings[-1].node_id if self.open_headings else self.root_id
        node = TreeNode(
            id=f"{self.doc_id}:n{len(self.nodes)}",
            kind=kind,
            text=text,
            level=len(self.open_headings) + 1,
            parent=parent,
            paragraph_id=paragraph_id,
        )
        self.nodes[node.id] = node
        self.nodes[parent].children.append(node.id)
        return node

    def open_heading(self, level: int, text: str) -> None:
        while self.open_headings and self.open_headings[-1].level >= level:
            self.open_headings.pop()
        node = self.add_node("heading", text)
        self.open_headings.append(_Open(level, node.id, text))


def build_document(
    loaded: LoadedDocument,
    *,
    doc_id: str,
    name: str,
    size_bytes: int,
    count_tokens_many: CountTokens,
    chunk_tokens: int = DEFAULT_CHUNK_TOKENS,
    index_fingerprint: str = "",
) -> Document:
    """Build and validate the document.

    Tree node levels are depths (title 0, top headings 1, ...), so a jump from H1 to H3 gives
    the H3 depth 2 under the H1. A leading heading equal to the title is the root itself.
    Content nodes carry their paragraph's full text.
    """
    title = loaded.title or _stem(name)
    root_id = f"{doc_id}:n0"
    builder = _Builder(doc_id, root_id, {root_id: TreeNode(root_id, "title", title, 0, None)})
    parts: list[str] = []
    paragraphs: list[Paragraph] = []
    sentences: list[Sentence] = []
    sections: list[int] = []
    section = 0
    offset = 0
    blocks = [b for b in loaded.blocks if b.text.strip()]
    for position, block in enumerate(blocks):
        start = offset
        parts.append(block.text)
        offset += len(block.text) + len(BLOCK_SEPARATOR)
        if block.kind == "heading":
            section += 1
            is_title = position == 0 and collapse_whitespace(block.text) == collapse_whitespace(title)
            if not is_title:
                builder.open_heading(block.level, block.text)
            continue
        paragraph_id = f"{doc_id}:p{len(paragraphs)}"
        sentence_ids = []
        for span_start, span_end in sentence_spans(block.text):
            sentence = Sentence(
                id=f"{doc_id}:s{len(sentences)}",
                paragraph_id=paragraph_id,
                index=len(sentences),
                start=start + span_start,
                end=start + span_end,
                page=block.page,
            )
            sentences.append(sentence)
            sections.append(section)
            sentence_ids.append(sentence.id)
        paragraphs.append(
            Paragraph(
                id=paragraph_id,
                index=len(paragraphs),
                start=start,
                end=start + len(block.text),
                sentence_ids=tuple(sentence_ids),
                page=block.page,
                heading_path=tuple(h.text for h in builder.open_headings),
            )
        )
        builder.add_node("content", block.text, paragraph_id)
    text = BLOCK_SEPARATOR.join(parts)
    document = Document(
        id=doc_id,
        name=display_name(name),
        source_type=loaded.source_type,
        title=title,
        text=text,
        size_bytes=size_bytes,
        page_count=loaded.page_count,
        paragraphs=paragraphs,
        sentences=sentences,
        chunks=chunk_sentences(
            sentences,
            text,
            sections,
            doc_id=doc_id,
            count_tokens_many=count_tokens_many,
            max_tokens=chunk_tokens,
        ),
        tree=DocumentTree(root=root_id, nodes=builder.nodes),
        warnings=list(loaded.warnings),
        index_fingerprint=index_fingerprint,
    )
    document.validate()
    return document


def _stem(name: str) -> str:
    base = display_name(name)
    stem, dot, _ = base.rpartition(".")
    return stem if dot and stem else base
