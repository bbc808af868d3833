"""Document text is untrusted: before a prompt quotes it, every delimiter the studio's prompts use is defused.

Each prompt puts document text, and text derived from it (EDU openings, a plan, a view of the
heading tree), between its own tags. A document that writes one of those tags could close its
block early or open a fake one, and speak as the prompt. Every prompt's tags are defused in every
block, because a block of one prompt can be quoted inside another (the EDU openings of a chunk
tree sit in a structure block of the answer prompt, next to passage blocks).
"""

from __future__ import annotations

import re

PROMPT_TAGS = ("passage", "structure", "chunk", "document_tree")
_TAG = re.compile(r"<\s*(/?)\s*(" + "|".join(PROMPT_TAGS) + r")\b", re.IGNORECASE)


def defuse_tags(text: str) -> str:
    """`<passage`, `</chunk`, `< /STRUCTURE` ... become `‹passage`, `‹/chunk`, `‹/STRUCTURE`: still
    readable, no longer a tag."""
    return _TAG.sub(lambda match: f"‹{match.group(1)}{match.group(2)}", text)
