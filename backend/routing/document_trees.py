"""Structure trees for library documents, built once per document and kept in memory.

Document ids are content hashes, so a tree cached under an id never goes stale. A PDF whose
ingestion found no headings gets a second look at its stored upload (outline, else layout cues).
"""

from __future__ import annotations

import threading
from collections import OrderedDict

from backend.ingest.document import Document
from backend.library import Library
from backend.routing.pdf_headings import pdf_heading_cues
from backend.routing.structure_builders import tree_from_document
from backend.routing.structure_tree import StructureTree

_LIMIT = 256
_CACHE: OrderedDict[str, StructureTree] = OrderedDict()
_LOCK = threading.Lock()


def structure_tree_for(doc: Document, library: Library | None = None) -> StructureTree:
    """The document's structure tree, cached by document id."""
    with _LOCK:
        if doc.id in _CACHE:
            _CACHE.move_to_end(doc.id)
            return _CACHE[doc.id]
    cues, producer = [], ""
    if doc.source_type == "pdf" and doc.tree.heading_count() == 0 and library is not None:
        try:
            cues, producer = pdf_heading_cues(library.upload(doc.id))
        except (KeyError, OSError):  # the upload is gone: the flat tree is all we can build
            cues, producer = [], ""
    tree = tree_from_document(doc, cues, producer)
    with _LOCK:
        _CACHE[doc.id] = tree
        while len(_CACHE) > _LIMIT:
            _CACHE.popitem(last=False)
    return tree
