"""Escaping for untrusted text (documents, model replies) shown through st.markdown."""

from __future__ import annotations

import re

_MARKDOWN_SPECIALS = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$])")


def escape_markdown(text: str) -> str:
    """Show text literally: no links, images, HTML or formatting can come from it."""
    return _MARKDOWN_SPECIALS.sub(r"\\\1", text)
