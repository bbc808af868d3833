"""Chunk trees on disk, keyed by the chunk's content hash and the producer asked, so none is parsed twice.

Trees do not depend on the question, so Disco-RAG can parse a chunk once (at query time or ahead
of it, `preparse_document`) and reuse the tree. The key is the producer that was *asked* (an LLM
label or the trained parser), and the entry keeps the whole outcome: a chunk whose LLM reply fell
back is not sent to the LLM again, and the UI still shows that it fell back and why. A fallback
forced by a failed or empty model call is not stored, so the chunk is asked again once the server
answers. An entry that cannot be read (schema change, torn write) counts as a miss and is rebuilt.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from backend.discourse.chunk_parse import ChunkParse, ChunkParser, ParseOutcome
from backend.discourse.rst_tree import RSTTree
from backend.errors import MalformedOutputError
from backend.ingest.document import Document
from backend.progress import ProgressFn, no_progress

SCHEMA_VERSION = 1


def chunk_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


def _folder_name(producer_key: str) -> str:
    """Readable and unique: a slug of the key plus a short hash of it."""
    slug = re.sub(r"[^A-Za-z0-9._-]+", "-", producer_key).strip("-")[:48]
    return f"{slug}-{hashlib.sha256(producer_key.encode()).hexdigest()[:8]}"


class TreeCache:
    """`<data_dir>/rst_trees/<producer>/<chunk hash>.json`, written atomically."""

    def __init__(self, data_dir: Path) -> None:
        self.root = Path(data_dir) / "rst_trees"

    def _path(self, text: str, producer_key: str) -> Path:
        return self.root / _folder_name(producer_key) / f"{chunk_hash(text)}.json"

    def get(self, text: str, producer_key: str) -> ChunkParse | None:
        path = self._path(text, producer_key)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            if data.get("schema_version") != SCHEMA_VERSION or data.get("key") != producer_key:
                return None
            return ChunkParse(RSTTree.from_dict(data["tree"]), ParseOutcome.from_dict(data["outcome"]))
        except (OSError, ValueError, KeyError, TypeError, MalformedOutputError):
            return None

    def put(self, text: str, producer_key: str, parse: ChunkParse) -> None:
        path = self._path(text, producer_key)
        path.parent.mkdir(parents=True, exist_ok=True)
        data = {
            "schema_version": SCHEMA_VERSION,
            "key": producer_key,
            "tree": parse.tree.to_dict(),
            "outcome": parse.outcome.to_dict(),
        }
        tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
        tmp.write_text(json.dumps(data), encoding="utf-8")
        tmp.replace(path)

    def parse(self, text: str, parser: ChunkParser) -> tuple[ChunkParse, bool]:
        """(the cached or new parse, whether it was a cache hit); new parses are stored unless the
        model call behind them failed."""
        cached = self.get(text, parser.key)
        if cached is not None:
            return cached, True
        parse = parser.parse(text)
        if not parse.outcome.call_failed:
            self.put(text, parser.key, parse)
        return parse, False


@dataclass(frozen=True)
class PreparseReport:
    chunks: int
    parsed: int
    cached: int
    fallbacks: int
    seconds: float


def preparse_document(
    doc: Document, parser: ChunkParser, cache: TreeCache, progress: ProgressFn = no_progress
) -> PreparseReport:
    """Parse every chunk of `doc` not yet cached for `parser`; progress is reported per chunk."""
    started = time.perf_counter()
    total = len(doc.chunks)
    parsed = cached = fallbacks = 0
    progress("parse trees", 0, total)
    for done, chunk in enumerate(doc.chunks, start=1):
        result, hit = cache.parse(doc.chunk_text(chunk), parser)
        cached += hit
        parsed += not hit
        fallbacks += result.outcome.status == "fallback"
        progress("parse trees", done, total)
    return PreparseReport(total, parsed, cached, fallbacks, time.perf_counter() - started)
