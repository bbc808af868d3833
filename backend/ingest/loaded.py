"""What every loader returns: an ordered list of heading and paragraph blocks, format-free.

Loaders only decide *what the text is*; offsets, sentences, chunks and the tree are built once,
in `build.py`, so every format gets the same structure and ids.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

BlockKind = Literal["heading", "paragraph"]

_UNSAFE_CHARS = re.compile(r"[\x00-\x1f\x7f]")
_MAX_NAME_CHARS = 80


@dataclass(frozen=True)
class Block:
    """One heading (level 1-6) or one paragraph (level 0), with its 1-based page for PDFs."""

    kind: BlockKind
    text: str
    level: int = 0
    page: int | None = None


@dataclass
class LoadedDocument:
    title: str | None
    blocks: list[Block]
    page_count: int | None
    source_type: str
    warnings: list[str] = field(default_factory=list)

    def paragraph_blocks(self) -> list[Block]:
        return [b for b in self.blocks if b.kind == "paragraph"]


def display_name(name: str) -> str:
    """The untrusted upload name made safe to show in a message: last path part, no control chars."""
    base = name.replace("\\", "/").rsplit("/", 1)[-1]
    base = _UNSAFE_CHARS.sub("", base).strip() or "upload"
    return base if len(base) <= _MAX_NAME_CHARS else base[: _MAX_NAME_CHARS - 1] + "…"


def collapse_whitespace(text: str) -> str:
    """One space between words: loaders store paragraphs as single lines of prose."""
    return " ".join(text.split())
