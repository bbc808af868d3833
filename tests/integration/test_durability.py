"""Ingestion killed with SIGKILL at each stage: nothing half-written is visible, and it resumes.

A child process ingests a document into a real data directory (library JSON, embedded Chroma)
and prints each progress event; the test kills it when a chosen stage is reached, then opens
the same directory as the app would after a restart. A kill between two fast steps (the Chroma
write and the library entry) has the child hold at that event until the kill lands.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from backend.config import Settings
from backend.retrieval.embedder import get_embedder
from backend.retrieval.store import VectorStore
from backend.studio import Studio
from tests.conftest import REPO_ROOT

pytestmark = pytest.mark.integration

CHILD = textwrap.dedent(
    """
    import sys
    import time
    from pathlib import Path
    from backend.config import Settings
    from backend.studio import Studio

    studio = Studio(Settings(data_dir=Path(sys.argv[1])))
    data = Path(sys.argv[2]).read_bytes()
    hold = sys.argv[3] if len(sys.argv) > 3 else None

    def progress(stage, done, total):
        line = f"{stage} {done} {total}"
        print(line, flush=True)
        if line == hold:
            time.sleep(120)

    studio.indexer.index_file(data, "long-report.md", progress=progress)
    print("committed", flush=True)
    """
)


@pytest.fixture(scope="module")
def long_document(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """About 1,500 distinct sentences: long enough that embedding takes a few seconds."""
    paragraphs = []
    for p in range(150):
        sentences = [
            f"In region {p}, survey round {s} counted {p * 7 + s * 3} hives and {s + p % 11} losses."
            for s in range(10)
        ]
        paragraphs.append(" ".join(sentences))
    path = tmp_path_factory.mktemp("doc") / "long-report.md"
    path.write_text("# Hive survey\n\n" + "\n\n".join(paragraphs), encoding="utf-8")
    return path


def _run_and_kill(data_dir: Path, document: Path, stage: str, after: int, hold: str = "") -> list[str]:
    """Start the child and SIGKILL it at the `after`-th progress event of `stage`.

    With `hold` (a progress line such as "store 1 2") the child waits after printing that line,
    so the kill lands exactly there instead of wherever the child has got to.
    """
    proc = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(data_dir), str(document), *([hold] if hold else [])],
        cwd=REPO_ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    seen: list[str] = []
    count = 0
    assert proc.stdout is not None
    for line in proc.stdout:
        seen.append(line.strip())
        if line.startswith(stage):
            count += 1
            if count >= after:
                proc.send_signal(signal.SIGKILL)
                break
    proc.wait(timeout=120)
    return seen


def _store_document_ids(data_dir: Path) -> set[str]:
    """The documents Chroma holds rows for, read before a restart would prune them."""
    settings = Settings(data_dir=data_dir)
    embedder = get_embedder(settings.embedding_model)
    return VectorStore(settings, embedder.name, embedder.dimension).document_ids()


def _assert_consistent(studio: Studio) -> None:
    """Every visible document is whole: it validates and the store holds exactly its rows."""
    assert studio.store.document_ids() <= set(studio.library.ids())
    for doc_id in studio.library.ids():
        doc = studio.library.get(doc_id)
        doc.validate()
        stored = studio.store.vectors([s.id for s in doc.sentences])
        assert len(stored) == len(doc.sentences)


@pytest.mark.parametrize(
    ("stage", "after", "hold"),
    [
        ("segment", 1, ""),
        ("embed", 3, ""),
        ("store", 1, ""),
        ("store", 2, "store 1 2"),  # vectors in Chroma, no library entry yet
    ],
    ids=["segment", "embed", "store", "stored-not-committed"],
)
def test_killed_ingestion_leaves_nothing_visible_and_resumes(
    tmp_path: Path, long_document: Path, stage: str, after: int, hold: str
) -> None:
    data_dir = tmp_path / "data"
    seen = _run_and_kill(data_dir, long_document, stage, after, hold)
    assert "committed" not in seen, f"the child finished before the kill: {seen[-3:]}"
    if hold:
        assert seen[-1] == hold, f"killed elsewhere: {seen[-3:]}"
        assert _store_document_ids(data_dir), "the Chroma write had finished before the kill"

    studio = Studio(Settings(data_dir=data_dir))  # a restart: orphans are pruned on open
    _assert_consistent(studio)
    assert studio.library.ids() == []
    pending = studio.indexer.pending()
    if stage == "segment":
        assert pending == [], "nothing was journaled before segmentation ended"
        return
    assert [p.name for p in pending] == ["long-report.md"]

    calls: list[int] = []
    if stage == "store":  # vectors were saved before the store step: resuming must not embed again
        encode = studio.embedder.encode
        studio.embedder.encode = lambda texts, **kw: calls.append(len(texts)) or encode(texts, **kw)
    try:
        report = studio.indexer.resume(pending[0].doc_id)
    finally:
        studio.embedder.__dict__.pop("encode", None)
    assert report.status == "added"
    if stage == "store":
        assert calls == []
    assert studio.indexer.pending() == []
    _assert_consistent(studio)
    assert studio.store.count("sentences") == len(report.document.sentences)


def test_discarding_an_interrupted_ingestion_removes_its_upload(tmp_path: Path, long_document: Path) -> None:
    data_dir = tmp_path / "data"
    _run_and_kill(data_dir, long_document, "embed", 2)
    studio = Studio(Settings(data_dir=data_dir))
    [entry] = studio.indexer.pending()
    studio.indexer.discard(entry.doc_id)
    assert studio.indexer.pending() == []
    assert not list((data_dir / "uploads").iterdir())
    assert not list((data_dir / "pending").iterdir())
