"""Markdown files: headings with levels, paragraphs, list items, code and tables as plain text.

markdown-it-py gives CommonMark tokens, so ATX and setext headings, nested lists and raw HTML
are recognised exactly as a renderer would; we keep only the text a reader sees.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from markdown_it import MarkdownIt
from markdown_it.token import Token

from backend.ingest.html_loader import html_to_text
from backend.ingest.loaded import Block, BlockKind, LoadedDocument, collapse_whitespace
from backend.ingest.text_loader import decode_text

_PARSER = MarkdownIt("commonmark").enable(["table", "strikethrough"])
_HIDDEN_HTML = re.compile(r"<\s*(/?)\s*(script|style|noscript|template)\b", re.IGNORECASE)
_TEXT_TOKENS = frozenset({"text", "text_special", "code_inline"})


def load_markdown(data: bytes, name: str) -> LoadedDocument:
    text, warnings = decode_text(data, name)
    blocks = _blocks(_PARSER.parse(text.replace("\r\n", "\n").replace("\r", "\n")))
    title = next((b.text for b in blocks if b.kind == "heading" and b.level == 1), None)
    return LoadedDocument(
        title=title, blocks=blocks, page_count=None, source_type="markdown", warnings=warnings
    )


def _blocks(tokens: Sequence[Token]) -> list[Block]:
    blocks: list[Block] = []
    heading_level = 0
    row: list[str] | None = None
    for token in tokens:
        if token.type == "heading_open":
            heading_level = int(token.tag[1])
        elif token.type == "heading_close":
            heading_level = 0
        elif token.type == "tr_open":
            row = []
        elif token.type == "tr_close" and row is not None:
            _add(blocks, "paragraph", " | ".join(cell for cell in row if cell))
            row = None
        elif token.type == "inline":
            text = _inline_text(token.children or [])
            if row is not None:
                row.append(text)
            elif heading_level:
                _add(blocks, "heading", text, heading_level)
            else:
                _add(blocks, "paragraph", text)
        elif token.type in ("fence", "code_block"):
            if token.content.strip():
                blocks.append(Block("paragraph", token.content.strip("\n")))
        elif token.type == "html_block":
            _add(blocks, "paragraph", html_to_text(token.content))
    return blocks


def _add(blocks: list[Block], kind: BlockKind, text: str, level: int = 0) -> None:
    if text:
        blocks.append(Block(kind, text, level))


def _inline_text(children: Sequence[Token]) -> str:
    """Text and code spans kept, link markup dropped (its text kept), images and raw HTML dropped."""
    parts: list[str] = []
    hidden_depth = 0  # inside inline <script>...</script>: drop the text between the tags too
    for token in children:
        if token.type == "html_inline":
            match = _HIDDEN_HTML.match(token.content)
            if match:
                hidden_depth = max(0, hidden_depth + (-1 if match.group(1) else 1))
        elif hidden_depth:
            continue
        elif token.type in _TEXT_TOKENS:
            parts.append(token.content)
        elif token.type in ("softbreak", "hardbreak"):
            parts.append(" ")
    return collapse_whitespace("".join(parts))
