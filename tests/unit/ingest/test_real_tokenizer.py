"""Chunk budgets measured with the real MiniLM word-piece counter (loads the bundled model)."""

from pathlib import Path

import pytest

from backend.ingest.build import build_document
from backend.ingest.loaders import load_file

SAMPLES = Path(__file__).resolve().parents[3] / "assets" / "samples"


@pytest.mark.integration
@pytest.mark.parametrize("sample", sorted(p.name for p in SAMPLES.iterdir()))
def test_sample_chunks_fit_the_embedder(sample):
    from backend.retrieval.embedder import get_embedder

    embedder = get_embedder()
    data = (SAMPLES / sample).read_bytes()
    doc = build_document(
        load_file(data, sample, 2**20),
        doc_id="x",
        name=sample,
        size_bytes=len(data),
        count_tokens_many=embedder.count_tokens_many,
        chunk_tokens=128,
    )
    for chunk in doc.chunks:
        # WordPiece splits on whitespace first, so the sum of sentence counts is the chunk's count.
        assert embedder.count_tokens(doc.chunk_text(chunk)) == chunk.token_count
        assert chunk.token_count <= 128 or len(chunk.sentence_ids) == 1
    assert len(doc.chunks) >= 5
