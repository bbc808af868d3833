"""Token-bounded chunks packed greedily from whole sentences, never across a heading.

Sizes are in the embedder's word pieces. WordPiece splits on whitespace first, so a chunk's
count is the sum of its sentences' counts and one batched tokenizer call per document suffices.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from backend.ingest.document import Chunk, Sentence

CountTokens = Callable[[Sequence[str]], list[int]]
DEFAULT_CHUNK_TOKENS = 256


def pack(token_counts: Sequence[int], sections: Sequence[int], max_tokens: int) -> list[range]:
    """Group consecutive sentence indices: at most `max_tokens` per group, one section per group.

    A sentence larger than `max_tokens` becomes a group of its own.
    """
    if max_tokens < 1:
        raise ValueError(f"max_tokens must be at least 1, got {max_tokens}")
    if len(token_counts) != len(sections):
        raise ValueError("token_counts and sections differ in length")
    groups: list[range] = []
    start, total = 0, 0
    for index, count in enumerate(token_counts):
        if index > start and (sections[index] != sections[start] or total + count > max_tokens):
            groups.append(range(start, index))
            start, total = index, 0
        total += count
    if token_counts:
        groups.append(range(start, len(token_counts)))
    return groups


def chunk_sentences(
    sentences: Sequence[Sentence],
    text: str,
    sections: Sequence[int],
    *,
    doc_id: str,
    count_tokens_many: CountTokens,
    max_tokens: int = DEFAULT_CHUNK_TOKENS,
) -> list[Chunk]:
    """Chunks over `sentences` (document order); `sections[i]` names the heading section of sentence i."""
    counts = count_tokens_many([text[s.start : s.end] for s in sentences])
    chunks: list[Chunk] = []
    for index, group in enumerate(pack(counts, sections, max_tokens)):
        members = [sentences[i] for i in group]
        chunks.append(
            Chunk(
                id=f"{doc_id}:c{index}",
                index=index,
                start=members[0].start,
                end=members[-1].end,
                sentence_ids=tuple(s.id for s in members),
                token_count=sum(counts[i] for i in group),
                pages=tuple(sorted({s.page for s in members if s.page is not None})),
            )
        )
    return chunks
