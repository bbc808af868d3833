"""One entry point for uploads: size and emptiness checks, then the loader for the real type.

The type comes from the extension, corrected by sniffing the first bytes (a PDF renamed to
.txt is still read as a PDF). The name is untrusted and only ever used for its extension and,
sanitised, in messages: never as a path.
"""

from __future__ import annotations

from collections.abc import Callable

from backend.errors import BadDocumentError
from backend.ingest.html_loader import load_html
from backend.ingest.loaded import LoadedDocument, display_name
from backend.ingest.markdown_loader import load_markdown
from backend.ingest.pdf_loader import load_pdf
from backend.ingest.text_loader import load_text

Loader = Callable[[bytes, str], LoadedDocument]

LOADERS: dict[str, Loader] = {
    ".pdf": load_pdf,
    ".txt": load_text,
    ".text": load_text,
    ".md": load_markdown,
    ".markdown": load_markdown,
    ".html": load_html,
    ".htm": load_html,
}
SUPPORTED_EXTENSIONS = tuple(LOADERS)
_ZIP_MAGIC = b"PK\x03\x04"
_HTML_STARTS = (b"<!doctype html", b"<html")
_SUPPORTED_LIST = ", ".join(SUPPORTED_EXTENSIONS)


def extension(name: str) -> str:
    """Lower-case extension of the last path part ("" if none); pure string work, no filesystem."""
    base = name.replace("\\", "/").rsplit("/", 1)[-1]
    stem, dot, ext = base.rpartition(".")
    return f".{ext.lower()}" if dot and stem else ""


def load_file(data: bytes, name: str, max_bytes: int) -> LoadedDocument:
    """Load an uploaded file into blocks.

    Raises:
        BadDocumentError: empty, too large, unsupported type, unreadable, or no text in it.
    """
    shown = display_name(name)
    if not data:
        raise BadDocumentError(
            f"The file '{shown}' is empty (0 bytes).",
            "Check that you picked the right file and upload it again.",
        )
    if len(data) > max_bytes:
        raise BadDocumentError(
            f"The file '{shown}' is {len(data) / 2**20:.1f} MB, over the upload limit of "
            f"{max_bytes / 2**20:g} MB.",
            "Split it into smaller files, or raise the limit (STUDIO_MAX_UPLOAD_MB) in Settings.",
        )
    ext = extension(name)
    loader, note = _sniff(data, ext, shown)
    if loader is None:
        loader = LOADERS.get(ext)
    if loader is None:
        kind = f"the type '{ext}'" if ext else "no file extension"
        raise BadDocumentError(
            f"The file '{shown}' has {kind}, which is not supported.",
            f"Supported types: {_SUPPORTED_LIST}. Save it as one of these and upload it again.",
        )
    loaded = loader(data, name)
    if note:
        loaded.warnings.insert(0, note)
    if not loaded.paragraph_blocks():
        what = "only headings and no body text" if loaded.blocks else "no readable text"
        raise BadDocumentError(
            f"The file '{shown}' contains {what}.",
            "Check that it is the right file; if it is a scan or an image, run OCR first.",
        )
    return loaded


def _sniff(data: bytes, ext: str, shown: str) -> tuple[Loader | None, str]:
    """Override the extension when the content clearly says otherwise."""
    head = data[:1024]
    if b"%PDF-" in head and ext != ".pdf":
        return load_pdf, f"'{shown}' is a PDF despite its name; it was read as a PDF."
    if head.startswith(_ZIP_MAGIC):
        raise BadDocumentError(
            f"The file '{shown}' is a ZIP-based document (such as .docx, .odt or .epub): not supported.",
            f"Save it as PDF or plain text and upload that. Supported types: {_SUPPORTED_LIST}.",
        )
    if ext in (".txt", ".text", "") and head.lstrip().lower().startswith(_HTML_STARTS):
        return load_html, f"'{shown}' contains HTML; it was read as a web page."
    return None, ""
