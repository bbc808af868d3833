import hashlib
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from backend.ingest.build import build_document
from backend.ingest.document import Document
from backend.ingest.loaded import Block, LoadedDocument
from backend.ingest.loaders import load_file

SAMPLES = Path(__file__).resolve().parents[3] / "assets" / "samples"


def build(loaded, count_words, **kwargs):
    options = {"doc_id": "d", "name": "notes.md", "size_bytes": 10, "count_tokens_many": count_words}
    return build_document(loaded, **(options | kwargs))


def doc_of(blocks, count_words, title=None, **kwargs):
    return build(LoadedDocument(title, blocks, None, "markdown"), count_words, **kwargs)


def test_text_offsets_ids_and_heading_paths(count_words):
    blocks = [
        Block("heading", "Report", 1),
        Block("paragraph", "Intro one. Intro two."),
        Block("heading", "Costs", 2),
        Block("paragraph", "Buses cost 560,000 euros."),
        Block("heading", "Winter", 4),  # a jump from H2 to H4 nests under the H2
        Block("paragraph", "Range drops 30 percent."),
        Block("heading", "Air", 2),
        Block("paragraph", "Cleaner air."),
    ]
    doc = doc_of(blocks, count_words, title="Report")
    assert doc.text == "\n\n".join(b.text for b in blocks)
    assert doc.title == "Report"
    assert [doc.span(p.start, p.end) for p in doc.paragraphs] == [
        b.text for b in blocks if b.kind == "paragraph"
    ]
    assert [p.id for p in doc.paragraphs] == ["d:p0", "d:p1", "d:p2", "d:p3"]
    assert [p.heading_path for p in doc.paragraphs] == [(), ("Costs",), ("Costs", "Winter"), ("Air",)]
    assert [doc.sentence_text(s) for s in doc.sentences] == [
        "Intro one.",
        "Intro two.",
        "Buses cost 560,000 euros.",
        "Range drops 30 percent.",
        "Cleaner air.",
    ]
    assert [s.id for s in doc.sentences] == [f"d:s{i}" for i in range(5)]
    assert doc.sentences[1].paragraph_id == "d:p0"

    tree = doc.tree
    tree.validate()
    root = tree.node(tree.root)
    assert (root.id, root.kind, root.text, root.level) == ("d:n0", "title", "Report", 0)
    titles = {n.text: n for n in tree.nodes.values() if n.kind == "heading"}
    assert set(titles) == {"Costs", "Winter", "Air"}  # the leading H1 equal to the title is the root
    assert titles["Winter"].parent == titles["Costs"].id and titles["Winter"].level == 2
    assert titles["Air"].parent == root.id
    contents = [n for n in tree.nodes.values() if n.kind == "content"]
    assert [n.paragraph_id for n in contents] == [p.id for p in doc.paragraphs]
    assert contents[2].parent == titles["Winter"].id
    assert all(n.id.startswith("d:n") for n in tree.nodes.values())


def test_chunks_stay_inside_sections_and_budget(count_words):
    blocks = [
        Block("paragraph", "One two three. Four five six. Seven eight nine."),
        Block("paragraph", "Ten eleven twelve."),
        Block("heading", "Next", 1),
        Block("paragraph", "Red green blue. " + " ".join(["Word"] * 20) + "."),
    ]
    doc = doc_of(blocks, count_words, chunk_tokens=7)
    chunk_texts = [doc.chunk_text(c) for c in doc.chunks]
    assert chunk_texts == [
        "One two three. Four five six.",
        "Seven eight nine.\n\nTen eleven twelve.",  # paragraphs may share a chunk
        "Red green blue.",  # a heading may not
        " ".join(["Word"] * 20) + ".",  # over budget: alone
    ]
    assert [c.token_count for c in doc.chunks] == [6, 6, 3, 20]
    assert [c.id for c in doc.chunks] == ["d:c0", "d:c1", "d:c2", "d:c3"]


def test_title_falls_back_to_file_name_and_headings_without_title_match(count_words):
    doc = doc_of(
        [Block("heading", "Intro", 1), Block("paragraph", "Text.")], count_words, name="dir/My Notes.v2.txt"
    )
    assert doc.title == "My Notes.v2"
    assert doc.name == "My Notes.v2.txt"
    assert doc.tree.heading_count() == 1
    assert doc.paragraphs[0].heading_path == ("Intro",)


def test_pages_flow_to_sentences_and_chunks(make_pdf, count_words):
    data = make_pdf([["Page one has a sentence."], ["Page two has another."]])
    loaded = load_file(data, "p.pdf", 2**20)
    doc = build(loaded, count_words, name="p.pdf")
    assert doc.page_count == 2 and doc.source_type == "pdf"
    assert [s.page for s in doc.sentences] == [1, 2]
    assert doc.chunks[0].pages == (1, 2)


@pytest.mark.parametrize("sample", sorted(p.name for p in SAMPLES.iterdir()))
def test_same_bytes_give_same_ids_and_json_round_trips(sample, count_words):
    data = (SAMPLES / sample).read_bytes()
    doc_id = hashlib.sha256(data).hexdigest()[:16]
    first, second = (
        build(load_file(data, sample, 2**20), count_words, doc_id=doc_id, name=sample, size_bytes=len(data))
        for _ in range(2)
    )
    assert first.to_dict() == second.to_dict()
    assert Document.from_dict(first.to_dict()).to_dict() == first.to_dict()
    assert all(c.token_count <= 256 for c in first.chunks)
    assert first.tree.heading_count() >= 4


_BLOCKS = st.lists(
    st.one_of(
        st.builds(Block, st.just("heading"), st.text("abc ", min_size=1, max_size=10), st.integers(1, 6)),
        st.builds(
            Block,
            st.just("paragraph"),
            st.lists(
                st.sampled_from(["Yes.", "no", "Dr.", "x?", "(a", "b)", "\n", "é"]), min_size=1, max_size=60
            ).map(" ".join),
        ),
    ),
    max_size=25,
)


@settings(max_examples=150, deadline=None)
@given(_BLOCKS, st.integers(1, 30))
def test_property_build_is_valid_and_loses_nothing(blocks, chunk_tokens):
    count = lambda texts: [len(t.split()) for t in texts]  # noqa: E731
    doc = doc_of(blocks, count, chunk_tokens=chunk_tokens)
    doc.validate()
    for paragraph in doc.paragraphs:
        sentences = [s for s in doc.sentences if s.paragraph_id == paragraph.id]
        assert [s.id for s in sentences] == list(paragraph.sentence_ids)
        covered = "".join(doc.sentence_text(s) for s in sentences)
        assert "".join(covered.split()) == "".join(doc.span(paragraph.start, paragraph.end).split())
    chunked = [sid for c in doc.chunks for sid in c.sentence_ids]
    assert chunked == [s.id for s in doc.sentences]
    for chunk in doc.chunks:
        assert chunk.token_count <= chunk_tokens or len(chunk.sentence_ids) == 1
