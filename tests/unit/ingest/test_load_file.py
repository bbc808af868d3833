from pathlib import Path

import pytest

from backend.errors import BadDocumentError
from backend.ingest.loaders import SUPPORTED_EXTENSIONS, extension, load_file

SAMPLES = Path(__file__).resolve().parents[3] / "assets" / "samples"
MB = 2**20


@pytest.mark.parametrize(
    ("name", "data", "source_type"),
    [
        ("a.txt", b"Plain text.", "text"),
        ("a.TEXT", b"Plain text.", "text"),
        ("a.md", b"# T\n\nBody.", "markdown"),
        ("a.markdown", b"# T\n\nBody.", "markdown"),
        ("a.html", b"<p>Body.</p>", "html"),
        ("A.HTM", b"<p>Body.</p>", "html"),
    ],
)
def test_dispatch_by_extension(name, data, source_type):
    assert load_file(data, name, MB).source_type == source_type


def test_pdf_dispatch(make_pdf):
    assert load_file(make_pdf([["Hello PDF."]]), "x.pdf", MB).source_type == "pdf"


def test_pdf_named_txt_is_read_as_pdf_with_a_note(make_pdf):
    loaded = load_file(make_pdf([["Hello PDF."]]), "x.txt", MB)
    assert loaded.source_type == "pdf"
    assert "is a PDF despite its name" in loaded.warnings[0]


def test_html_named_txt_is_read_as_html():
    loaded = load_file(b"<!DOCTYPE html><p>Hi <script>x()</script>there.</p>", "page.txt", MB)
    assert loaded.source_type == "html"
    assert loaded.blocks[0].text == "Hi there."


def test_empty_file():
    with pytest.raises(BadDocumentError, match=r"'e.txt' is empty \(0 bytes\)"):
        load_file(b"", "e.txt", MB)


def test_too_large_names_the_limit_in_mb():
    with pytest.raises(
        BadDocumentError, match=r"is 2\.0 MB, over the upload limit of 1 MB.*STUDIO_MAX_UPLOAD_MB"
    ):
        load_file(b"x" * (2 * MB), "big.txt", MB)


@pytest.mark.parametrize(("name", "what"), [("a.docx", "the type '.docx'"), ("README", "no file extension")])
def test_unknown_extension_lists_supported(name, what):
    with pytest.raises(BadDocumentError) as info:
        load_file(b"some bytes", name, MB)
    assert what in str(info.value)
    for ext in SUPPORTED_EXTENSIONS:
        assert ext in str(info.value)


def test_zip_documents_are_named():
    with pytest.raises(BadDocumentError, match="ZIP-based document"):
        load_file(b"PK\x03\x04" + b"\x00" * 50, "report.txt", MB)


@pytest.mark.parametrize(
    ("name", "data", "what"),
    [
        ("blank.txt", b"   \n\n\t  \n", "no readable text"),
        ("only.md", b"# Just a heading\n\n## Another", "only headings and no body text"),
        ("empty.html", b"<html><script>x()</script></html>", "no readable text"),
    ],
)
def test_no_text(name, data, what):
    with pytest.raises(BadDocumentError, match=what):
        load_file(data, name, MB)


def test_names_are_never_paths(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    loaded = load_file(b"Text.", "../../../../etc/passwd.txt", MB)
    assert loaded.blocks[0].text == "Text."
    assert extension("C:\\dir\\Report.PDF") == ".pdf"
    assert extension(".bashrc") == ""


@pytest.mark.parametrize("sample", sorted(p.name for p in SAMPLES.iterdir()))
def test_samples_load_with_headings_and_title(sample):
    data = (SAMPLES / sample).read_bytes()
    loaded = load_file(data, sample, MB)
    assert loaded.title
    assert sum(b.kind == "heading" for b in loaded.blocks) >= 4
    words = sum(len(b.text.split()) for b in loaded.blocks)
    assert 500 <= words <= 1500
    assert loaded.warnings == []
