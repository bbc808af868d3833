"""Generated and mutated uploads: ingestion either builds a valid document or says what is wrong.

Whatever the bytes, `load_file` + `build_document` must end in a `Document` that validates or a
`BadDocumentError` with a message: never another exception, never a silent empty document.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from backend.errors import BadDocumentError
from backend.ingest.build import build_document
from backend.ingest.loaders import load_file
from tests.conftest import REPO_ROOT
from tests.unit.ingest.conftest import build_pdf

MAX_BYTES = 2_000_000
NAMES = ("upload.pdf", "upload.txt", "upload.md", "upload.html", "upload", "../../etc/passwd.md", "a.docx")


def _words(texts):
    return [len(t.split()) for t in texts]


def ingest(data: bytes, name: str):
    """The studio's ingestion up to the store; returns the document or the error it raised."""
    try:
        loaded = load_file(data, name, max_bytes=MAX_BYTES)
        doc = build_document(loaded, doc_id="fuzz", name=name, size_bytes=len(data), count_tokens_many=_words)
    except BadDocumentError as error:
        assert error.what and str(error).startswith("[E300]")
        return error
    doc.validate()
    assert doc.paragraphs and doc.sentences and doc.chunks, "a document that loads has text in it"
    assert all(doc.sentence_text(s).strip() for s in doc.sentences)
    return doc


def _seeds() -> list[tuple[str, bytes]]:
    samples = REPO_ROOT / "assets" / "samples"
    pdf = build_pdf([["Budget rose by 12 percent.", "Staffing fell."], ["Outlook: three new cities."]])
    return [(p.name, p.read_bytes()) for p in sorted(samples.iterdir())] + [("report.pdf", pdf)]


def _mutate(data: bytes, rng: random.Random) -> bytes:
    """Flip, drop, duplicate or truncate bytes, like a damaged download or a bad disk."""
    out = bytearray(data)
    for _ in range(rng.randint(1, 12)):
        if not out:
            break
        at = rng.randrange(len(out))
        kind = rng.choice(("flip", "drop", "dup", "truncate", "nul"))
        if kind == "flip":
            out[at] = rng.randrange(256)
        elif kind == "drop":
            del out[at : at + rng.randint(1, 64)]
        elif kind == "dup":
            out[at:at] = out[at : at + rng.randint(1, 64)]
        elif kind == "truncate":
            del out[at:]
        else:
            out[at:at] = b"\x00" * rng.randint(1, 8)
    return bytes(out)


@pytest.mark.parametrize("seed", range(60))
def test_mutated_real_files(seed: int) -> None:
    rng = random.Random(seed)
    name, data = rng.choice(_seeds())
    ingest(_mutate(data, rng), rng.choice((name, *NAMES)))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.binary(max_size=4096), name=st.sampled_from(NAMES))
def test_arbitrary_bytes(data: bytes, name: str) -> None:
    ingest(data, name)


@settings(max_examples=100, deadline=None)
@given(text=st.text(max_size=3000), name=st.sampled_from(("a.txt", "a.md", "a.html")))
def test_arbitrary_text(text: str, name: str) -> None:
    ingest(text.encode("utf-8", "surrogatepass"), name)


def test_mixed_encodings_keep_the_readable_text() -> None:
    data = "Café prices rose. ".encode() + "Le thé coûte cher.".encode("latin-1") + b" Done here."
    doc = ingest(data, "mixed.txt")
    assert not isinstance(doc, BadDocumentError)
    assert "prices rose" in doc.text and "Done here" in doc.text


def test_one_enormous_paragraph_is_split_into_bounded_chunks() -> None:
    sentence = "The committee reviewed the budget line by line and found nothing unusual. "
    data = (sentence * 8000).encode()  # ~600 KB, one paragraph, 8,000 sentences
    doc = ingest(data, "wall.txt")
    assert len(doc.paragraphs) == 1 and len(doc.sentences) == 8000
    assert max(c.token_count for c in doc.chunks) <= 256


def test_a_sentence_without_any_boundary_is_still_chunked() -> None:
    data = ("word " * 50_000).encode()  # no punctuation at all
    doc = ingest(data, "nopunct.txt")
    assert len(doc.chunks) > 1 and max(c.token_count for c in doc.chunks) <= 256


def test_thousands_of_tiny_paragraphs() -> None:
    data = "\n\n".join(f"Item {i}." for i in range(5000)).encode()
    doc = ingest(data, "list.md")
    assert len(doc.paragraphs) == 5000
    assert sum(len(c.sentence_ids) for c in doc.chunks) == len(doc.sentences)


@pytest.mark.parametrize(
    ("data", "name", "what"),
    [
        (b"\x7fELF\x02\x01\x01" + bytes(range(256)) * 20, "program.txt", "binary file"),
        (b"\x89PNG\r\n\x1a\n" + bytes(2000), "picture.md", "binary file"),
        (b"%PDF-1.7\n" + bytes(500), "broken.pdf", "PDF"),
    ],
)
def test_binary_files_get_a_specific_message(data: bytes, name: str, what: str) -> None:
    error = ingest(data, name)
    assert isinstance(error, BadDocumentError) and what in str(error)
