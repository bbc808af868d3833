"""Plain-text files: robust decoding, binary rejection, paragraphs split on blank lines."""

from __future__ import annotations

import codecs
import re

from backend.errors import BadDocumentError
from backend.ingest.loaded import Block, LoadedDocument, collapse_whitespace, display_name

_BLANK_LINE = re.compile(r"\n[ \t\f\v]*\n|\f")
_SAMPLE_CHARS = 4096
_MAX_CONTROL_SHARE = 0.05
_ALLOWED_CONTROLS = frozenset("\n\r\t\f\v")


def decode_text(data: bytes, name: str) -> tuple[str, list[str]]:
    """Decode with the BOM if any, else UTF-8, else Windows-1252/Latin-1 with a warning.

    Raises:
        BadDocumentError: the bytes are binary (NUL bytes or mostly control characters).
    """
    shown = display_name(name)
    warnings: list[str] = []
    if data.startswith(codecs.BOM_UTF8):
        text = data[len(codecs.BOM_UTF8) :].decode("utf-8", errors="replace")
    elif data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        text = data.decode("utf-16", errors="replace")
    else:
        if b"\x00" in data:
            raise _binary_error(shown)
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            try:
                text, encoding = data.decode("cp1252"), "Windows-1252"
            except UnicodeDecodeError:
                text, encoding = data.decode("latin-1"), "Latin-1"
            warnings.append(
                f"'{shown}' is not valid UTF-8, so it was read as {encoding}; "
                "a few accented characters may be wrong. Save it as UTF-8 for exact text."
            )
    if _looks_binary(text):
        raise _binary_error(shown)
    return text, warnings


def split_paragraphs(text: str) -> list[str]:
    """Blank lines separate paragraphs; hard-wrapped lines inside one are joined with spaces."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    paragraphs = (collapse_whitespace(part) for part in _BLANK_LINE.split(text))
    return [p for p in paragraphs if p]


def load_text(data: bytes, name: str) -> LoadedDocument:
    text, warnings = decode_text(data, name)
    blocks = [Block("paragraph", p) for p in split_paragraphs(text)]
    return LoadedDocument(title=None, blocks=blocks, page_count=None, source_type="text", warnings=warnings)


def _looks_binary(text: str) -> bool:
    sample = text[:_SAMPLE_CHARS]
    if not sample:
        return False
    controls = sum(1 for c in sample if not c.isprintable() and c not in _ALLOWED_CONTROLS)
    return "\x00" in sample or controls / len(sample) > _MAX_CONTROL_SHARE


def _binary_error(shown: str) -> BadDocumentError:
    return BadDocumentError(
        f"'{shown}' looks like a binary file, not text (it contains NUL or control bytes).",
        "Upload a PDF, Markdown, HTML or plain-text file; save other formats as PDF or text first.",
    )
