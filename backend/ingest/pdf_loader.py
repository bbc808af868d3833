"""PDF files via pypdf: text per page, paragraphs rebuilt from line breaks, outline headings.

pypdf gives each page's text as lines with no paragraph marks, so paragraphs are inferred:
a blank line, a bullet, or a short line ending a sentence closes one; hard-wrapped lines are
joined and "exam-\\nple" is de-hyphenated. Headings come from the PDF outline (bookmarks) when
present; a PDF without one gets no headings here.
"""

from __future__ import annotations

import io
import re
from dataclasses import dataclass

from pypdf import PdfReader
from pypdf.errors import DependencyError

from backend.errors import BadDocumentError
from backend.ingest.loaded import Block, LoadedDocument, collapse_whitespace, display_name

_PAGE_NUMBER = re.compile(r"^(page\s+)?[-–—]?\s*\d{1,4}\s*[-–—]?(\s*(of|/)\s*\d{1,4})?$", re.IGNORECASE)
_BULLET = re.compile(r"^([•▪◦‣●∙·*-]|\(?\d{1,3}[.)]|\(?[a-z][.)])\s")
_SENTENCE_END = tuple('.!?:;"”’)')
_SHORT_LINE_SHARE = 0.75  # a line shorter than this share of the page's long lines may end a paragraph
_MAX_LISTED_PAGES = 10
_MAX_OUTLINE_DEPTH = 6


@dataclass
class _OutlineEntry:
    key: str
    level: int
    page: int | None  # 1-based, None when the destination cannot be resolved
    used: bool = False


def load_pdf(data: bytes, name: str) -> LoadedDocument:
    """Read a PDF into blocks with 1-based page numbers.

    Raises:
        BadDocumentError: not a PDF, corrupt, password-protected, no pages, or no text layer at all.
    """
    shown = display_name(name)
    reader = _open(data, shown)
    outline = _outline(reader)
    blocks: list[Block] = []
    empty_pages: list[int] = []
    unreadable_pages: list[int] = []
    for number, page in enumerate(reader.pages, start=1):
        try:
            text = page.extract_text() or ""
        except Exception:  # pypdf raises many types on a damaged content stream; skip that page
            unreadable_pages.append(number)
            continue
        page_blocks = _page_blocks(text, number, outline)
        if not page_blocks:
            empty_pages.append(number)
            continue
        _append_page(blocks, page_blocks)
    if not blocks:
        raise BadDocumentError(
            f"The PDF '{shown}' has no text layer: its pages are images (a scan or a photo).",
            "Run OCR on it (e.g. `ocrmypdf in.pdf out.pdf`) and upload the result.",
        )
    return LoadedDocument(
        title=_metadata_title(reader),
        blocks=blocks,
        page_count=len(reader.pages),
        source_type="pdf",
        warnings=_page_warnings(empty_pages, unreadable_pages),
    )


def _open(data: bytes, shown: str) -> PdfReader:
    if b"%PDF-" not in data[:1024]:
        raise BadDocumentError(
            f"'{shown}' is not a PDF (it has no %PDF header).",
            "Check the file type: export it as PDF again, or upload it with its real extension.",
        )
    try:
        reader = PdfReader(io.BytesIO(data), strict=False)
        if reader.is_encrypted and not reader.decrypt(""):  # many PDFs open with an empty password
            raise BadDocumentError(
                f"The PDF '{shown}' is encrypted with a password.",
                "Remove the password (e.g. print to PDF) and upload it again.",
            )
        page_count = len(reader.pages)
    except BadDocumentError:
        raise
    except DependencyError:
        raise BadDocumentError(
            f"The PDF '{shown}' is encrypted with AES, which needs the optional 'cryptography' package.",
            "Remove the encryption (e.g. print to PDF) and upload it again, or `pip install cryptography`.",
        ) from None
    except Exception as exc:  # pypdf reports damage as PdfReadError, ValueError, KeyError, zlib errors...
        raise BadDocumentError(
            f"The PDF '{shown}' is damaged and cannot be read ({type(exc).__name__}).",
            "Open it in a PDF viewer and save or print it to a new PDF, then upload that.",
        ) from None
    if page_count == 0:
        raise BadDocumentError(
            f"The PDF '{shown}' has no pages.", "Check that the export finished, then upload it again."
        )
    return reader


def _heading_key(text: str) -> str:
    return " ".join(re.sub(r"[^\w]+", " ", text.casefold()).split())


def _outline(reader: PdfReader) -> list[_OutlineEntry]:
    """Flattened bookmarks in reading order with their nesting level; empty if absent or broken."""
    entries: list[_OutlineEntry] = []

    def walk(items: list, level: int) -> None:
        for item in items:
            if isinstance(item, list):
                if level < _MAX_OUTLINE_DEPTH:
                    walk(item, level + 1)
                continue
            key = _heading_key(str(getattr(item, "title", "") or ""))
            if key:
                index = reader.get_destination_page_number(item)
                page = index + 1 if index is not None and index >= 0 else None
                entries.append(_OutlineEntry(key, level, page))

    try:
        walk(reader.outline, 1)
    except Exception:  # a malformed outline only costs us the headings, not the document
        return []
    return entries


def _match_heading(line: str, page: int, outline: list[_OutlineEntry]) -> int | None:
    key = _heading_key(line)
    for entry in outline:
        if not entry.used and entry.key == key and entry.page in (page, None):
            entry.used = True
            return entry.level
    return None


def _page_blocks(text: str, page: int, outline: list[_OutlineEntry]) -> list[Block]:
    lines = [collapse_whitespace(line) for line in text.replace("\r", "\n").split("\n")]
    filled = [i for i, line in enumerate(lines) if line]
    for edge in {filled[0], filled[-1]} if filled else ():
        if _PAGE_NUMBER.match(lines[edge]):
            lines[edge] = ""
    long_line = max((len(line) for line in lines), default=0)
    blocks: list[Block] = []
    current: list[str] = []

    def close() -> None:
        if current:
            blocks.append(Block("paragraph", _join_lines(current), page=page))
            current.clear()

    for line in lines:
        if not line:
            close()
            continue
        level = _match_heading(line, page, outline) if outline else None
        if level is not None:
            close()
            blocks.append(Block("heading", line, level=level, page=page))
            continue
        if _BULLET.match(line):
            close()
        current.append(line)
        if line.endswith(_SENTENCE_END) and len(line) < _SHORT_LINE_SHARE * long_line:
            close()
    close()
    return blocks


def _join_lines(lines: list[str]) -> str:
    text = lines[0]
    for line in lines[1:]:
        text = _join_two(text, line)
    return text


def _join_two(left: str, right: str) -> str:
    """Join wrapped lines; "exam-" + "ple" becomes "example" when both sides are lowercase letters."""
    if len(left) >= 2 and left.endswith("-") and left[-2].islower() and right[:1].islower():
        return left[:-1] + right
    return f"{left} {right}"


def _append_page(blocks: list[Block], page_blocks: list[Block]) -> None:
    """A paragraph cut by a page break continues: no sentence end before, lowercase after."""
    first, last = page_blocks[0], blocks[-1] if blocks else None
    if (
        last is not None
        and last.kind == first.kind == "paragraph"
        and not last.text.endswith(_SENTENCE_END)
        and first.text[:1].islower()
    ):
        blocks[-1] = Block("paragraph", _join_two(last.text, first.text), page=last.page)
        page_blocks = page_blocks[1:]
    blocks.extend(page_blocks)


def _metadata_title(reader: PdfReader) -> str | None:
    try:
        title = reader.metadata.title if reader.metadata else None
    except Exception:  # a damaged Info dictionary is not worth failing the upload
        return None
    return collapse_whitespace(str(title or "")) or None


def _page_warnings(empty: list[int], unreadable: list[int]) -> list[str]:
    warnings = []
    if empty:
        warnings.append(
            f"{_pages(empty)} no text layer (probably scanned images) and {_were(empty)} skipped; "
            "run OCR on the PDF to include them."
        )
    if unreadable:
        warnings.append(
            f"{_pages(unreadable)} damaged text and {_were(unreadable)} skipped; "
            "re-save the PDF (print to PDF) to recover them."
        )
    return warnings


def _pages(numbers: list[int]) -> str:
    listed = ", ".join(str(n) for n in numbers[:_MAX_LISTED_PAGES])
    more = f" and {len(numbers) - _MAX_LISTED_PAGES} more" if len(numbers) > _MAX_LISTED_PAGES else ""
    return f"Page {listed} has" if len(numbers) == 1 else f"Pages {listed}{more} have"


def _were(numbers: list[int]) -> str:
    return "was" if len(numbers) == 1 else "were"
