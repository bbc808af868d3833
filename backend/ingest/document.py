"""The ingested document: text plus paragraphs, sentences and chunks addressed by offsets.

Every span is `[start, end)` into `Document.text`, so any unit can be shown, highlighted or
cited without copying text around. Ids are stable: they derive from the content hash and the
unit's position, so re-ingesting identical content yields identical ids.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from backend.ingest.heading_tree import DocumentTree

SCHEMA_VERSION = 1


@dataclass(frozen=True)
class Sentence:
    id: str
    paragraph_id: str
    index: int
    start: int
    end: int
    page: int | None = None


@dataclass(frozen=True)
class Paragraph:
    id: str
    index: int
    start: int
    end: int
    sentence_ids: tuple[str, ...]
    page: int | None = None
    heading_path: tuple[str, ...] = ()


@dataclass(frozen=True)
class Chunk:
    id: str
    index: int
    start: int
    end: int
    sentence_ids: tuple[str, ...]
    token_count: int
    pages: tuple[int, ...] = ()


@dataclass
class Document:
    """One uploaded file after ingestion; persisted as JSON in the library."""

    id: str
    name: str
    source_type: str
    title: str
    text: str
    size_bytes: int
    page_count: int | None
    paragraphs: list[Paragraph]
    sentences: list[Sentence]
    chunks: list[Chunk]
    tree: DocumentTree
    warnings: list[str] = field(default_factory=list)
    index_fingerprint: str = ""

    def span(self, start: int, end: int) -> str:
        return self.text[start:end]

    def chunk_text(self, chunk: Chunk) -> str:
        return self.text[chunk.start : chunk.end]

    def sentence_text(self, sentence: Sentence) -> str:
        return self.text[sentence.start : sentence.end]

    @property
    def word_count(self) -> int:
        return len(self.text.split())

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["tree"] = self.tree.to_dict()
        data["schema_version"] = SCHEMA_VERSION
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Document:
        version = data.get("schema_version")
        if version != SCHEMA_VERSION:
            raise ValueError(f"document schema {version!r}, expected {SCHEMA_VERSION}")
        doc = cls(
            id=data["id"],
            name=data["name"],
            source_type=data["source_type"],
            title=data["title"],
            text=data["text"],
            size_bytes=data["size_bytes"],
            page_count=data["page_count"],
            paragraphs=[
                Paragraph(
                    **{
                        **p,
                        "sentence_ids": tuple(p["sentence_ids"]),
                        "heading_path": tuple(p["heading_path"]),
                    }
                )
                for p in data["paragraphs"]
            ],
            sentences=[Sentence(**s) for s in data["sentences"]],
            chunks=[
                Chunk(**{**c, "sentence_ids": tuple(c["sentence_ids"]), "pages": tuple(c["pages"])})
                for c in data["chunks"]
            ],
            tree=DocumentTree.from_dict(data["tree"]),
            warnings=list(data.get("warnings", [])),
            index_fingerprint=data.get("index_fingerprint", ""),
        )
        doc.validate()
        return doc

    def validate(self) -> None:
        """Offsets in range, ids unique, references resolvable: a loaded file is trusted only after this."""
        n = len(self.text)
        sentence_ids = {s.id for s in self.sentences}
        if len(sentence_ids) != len(self.sentences):
            raise ValueError("duplicate sentence ids")
        for unit in (*self.paragraphs, *self.sentences, *self.chunks):
            if not 0 <= unit.start <= unit.end <= n:
                raise ValueError(f"{unit.id}: span [{unit.start}, {unit.end}) outside text of {n}")
        for unit in (*self.paragraphs, *self.chunks):
            missing = set(unit.sentence_ids) - sentence_ids
            if missing:
                raise ValueError(f"{unit.id} names unknown sentences {sorted(missing)[:3]}")
        self.tree.validate()
