"""HTML files: visible text only, headings h1-h6, block elements as paragraphs.

Uses the stdlib "html.parser" backend so no C parser is needed; scripts, styles and other
non-visible elements are removed before any text is read, so no markup reaches the document.
"""

from __future__ import annotations

from bs4 import BeautifulSoup, NavigableString, Tag

from backend.ingest.loaded import Block, LoadedDocument, collapse_whitespace

_INVISIBLE = ("script", "style", "noscript", "template", "head", "svg", "iframe", "object", "canvas")
_HEADINGS = {f"h{i}": i for i in range(1, 7)}
# Elements that end the running paragraph; their inline content forms paragraphs of its own.
_BLOCKS = frozenset(
    {
        *("address", "article", "aside", "blockquote", "body", "br", "dd", "div", "dl", "dt"),
        *("figcaption", "figure", "footer", "form", "header", "hr", "html", "li", "main", "nav"),
        *("ol", "p", "section", "table", "tbody", "td", "tfoot", "th", "thead", "tr", "ul"),
    }
)


def html_to_text(fragment: str) -> str:
    """Visible text of an HTML fragment (used for raw HTML inside Markdown)."""
    soup = BeautifulSoup(fragment, "html.parser")
    _drop_invisible(soup)
    return collapse_whitespace(soup.get_text(" "))


def load_html(data: bytes, name: str) -> LoadedDocument:
    soup = BeautifulSoup(data, "html.parser")  # bytes: bs4 detects the charset from BOM/meta
    title_tag = soup.find("title")
    title = collapse_whitespace(title_tag.get_text(" ")) if title_tag else ""
    _drop_invisible(soup)  # after reading <title>, which lives in the dropped <head>
    blocks = _blocks(soup)
    if not title:
        title = next((b.text for b in blocks if b.kind == "heading" and b.level == 1), "")
    return LoadedDocument(title=title or None, blocks=blocks, page_count=None, source_type="html")


def _drop_invisible(soup: BeautifulSoup) -> None:
    for tag in soup.find_all(_INVISIBLE):
        tag.decompose()


def _blocks(soup: BeautifulSoup) -> list[Block]:
    """Walk the tree iteratively (deep nesting cannot overflow the stack), flushing at block edges."""
    blocks: list[Block] = []
    buffer: list[str] = []

    def flush() -> None:
        text = collapse_whitespace("".join(buffer))
        buffer.clear()
        if text:
            blocks.append(Block("paragraph", text))

    stack: list[object] = list(reversed(soup.contents))
    while stack:
        node = stack.pop()
        if node is flush:
            flush()
        elif isinstance(node, Tag):
            if node.name in _HEADINGS:
                flush()
                text = collapse_whitespace(node.get_text(" "))
                if text:
                    blocks.append(Block("heading", text, level=_HEADINGS[node.name]))
            elif node.name == "pre":
                flush()
                text = node.get_text().strip("\n")
                if text.strip():
                    blocks.append(Block("paragraph", text))
            elif node.name in _BLOCKS:
                flush()
                stack.append(flush)
                stack.extend(reversed(node.contents))
            else:
                stack.extend(reversed(node.contents))
        elif type(node) is NavigableString:  # subclasses are comments, doctypes, CDATA...
            buffer.append(str(node))
    flush()
    return blocks
