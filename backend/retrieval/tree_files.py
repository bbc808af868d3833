"""Built retrieval trees on disk, one JSON file per tree, filed under the document they belong to.

A tree's id is a hash of everything that shapes it: the document's content and segmentation,
the method, tau, the parser, the summariser model and the embedder. The same document under
the same settings therefore maps to the same file and is never parsed, summarised or embedded
twice; a change to any of them gives a new tree. Files sit in `<data_dir>/disretrieval/trees/
<doc id>/`, so deleting a document deletes its trees in one step. A file that cannot be read
(torn write, schema change) counts as missing and is rebuilt.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import threading
from dataclasses import asdict, dataclass
from pathlib import Path

from backend.errors import MalformedOutputError
from backend.ingest.document import Document
from backend.retrieval.discourse_tree import DiscourseTree


@dataclass(frozen=True)
class TreeKey:
    """What a built tree depends on; `summariser` None means merge-only (tau then plays no part)."""

    method: str
    embedder: str
    parser: str | None = None
    summariser: str | None = None
    tau: int | None = None

    def tree_id(self, doc: Document) -> str:
        segmentation = hashlib.sha256(
            ";".join(f"{s.start},{s.end}" for s in doc.sentences).encode()
        ).hexdigest()[:16]
        fields = {**asdict(self), "doc": doc.id, "segmentation": segmentation}
        if self.summariser is None:
            fields["tau"] = None
        digest = hashlib.sha256(json.dumps(fields, sort_keys=True).encode()).hexdigest()[:20]
        return f"{self.method}-{digest}"


class TreeFiles:
    def __init__(self, data_dir: Path) -> None:
        self.root = Path(data_dir) / "disretrieval" / "trees"
        self._lock = threading.Lock()

    def _path(self, doc_id: str, tree_id: str) -> Path:
        if not doc_id.isalnum() or not tree_id.replace("-", "").replace("_", "").isalnum():
            raise KeyError(f"{doc_id}/{tree_id}")
        return self.root / doc_id / f"{tree_id}.json"

    def get(self, doc_id: str, tree_id: str) -> DiscourseTree | None:
        try:
            data = json.loads(self._path(doc_id, tree_id).read_text(encoding="utf-8"))
            tree = DiscourseTree.from_dict(data)
        except (OSError, ValueError, KeyError, MalformedOutputError):
            return None
        return tree if tree.tree_id == tree_id and tree.doc_id == doc_id else None

    def exists(self, doc_id: str, tree_id: str) -> bool:
        try:
            return self._path(doc_id, tree_id).is_file()
        except KeyError:
            return False

    def put(self, tree: DiscourseTree) -> None:
        path = self._path(tree.doc_id, tree.tree_id)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
        tmp.write_text(json.dumps(tree.to_dict(), ensure_ascii=False), encoding="utf-8")
        tmp.replace(path)

    def tree_ids(self, doc_id: str) -> list[str]:
        folder = self.root / doc_id
        return sorted(p.stem for p in folder.glob("*.json")) if doc_id.isalnum() else []

    def remove_document(self, doc_id: str) -> None:
        """Delete every tree built for `doc_id`."""
        if doc_id.isalnum():
            with self._lock:
                shutil.rmtree(self.root / doc_id, ignore_errors=True)
