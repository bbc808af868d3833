import pytest

from backend.errors import BadDocumentError
from backend.ingest.pdf_loader import load_pdf

WRAPPED = [
    "Bus fleets in cold cities lose a large share of their battery range in",
    "winter, because the cabin heaters draw from the same battery as the exam-",
    "ple motor does. Range fell by 30 percent.",
    "The second paragraph is short.",
]


def test_text_pages_and_paragraph_heuristics(make_pdf):
    loaded = load_pdf(make_pdf([WRAPPED, ["Another page. It has text."]]), "report.pdf")
    assert loaded.source_type == "pdf"
    assert loaded.page_count == 2
    texts = [b.text for b in loaded.blocks]
    assert texts[0].startswith(
        "Bus fleets in cold cities lose a large share of their battery range in winter,"
    )
    assert "the example motor does. Range fell by 30 percent." in texts[0]
    assert texts[1] == "The second paragraph is short."
    assert [b.page for b in loaded.blocks] == [1, 1, 2]
    assert all(b.kind == "paragraph" for b in loaded.blocks)
    assert loaded.warnings == []


def test_outline_titles_become_headings_with_levels(make_pdf):
    pages = [["1 Introduction", "Opening words here."], ["1.1 Scope", "Scope text.", "2 Results", "Numbers."]]
    outline = [("1 Introduction", 0, 1), ("1.1 Scope", 1, 2), ("2 Results", 1, 1)]
    loaded = load_pdf(make_pdf(pages, outline=outline, title="Paper Title"), "p.pdf")
    headings = [(b.text, b.level, b.page) for b in loaded.blocks if b.kind == "heading"]
    assert headings == [("1 Introduction", 1, 1), ("1.1 Scope", 2, 2), ("2 Results", 1, 2)]
    assert loaded.title == "Paper Title"


def test_without_outline_there_are_no_headings(make_pdf):
    loaded = load_pdf(make_pdf([["1 Introduction", "Opening words here."]]), "p.pdf")
    assert all(b.kind == "paragraph" for b in loaded.blocks)
    assert loaded.title is None


def test_paragraph_cut_by_page_break_is_joined_and_page_numbers_dropped(make_pdf):
    pages = [["A sentence that runs over the page break and", "7"], ["continues here on page two."]]
    loaded = load_pdf(make_pdf(pages), "p.pdf")
    assert [b.text for b in loaded.blocks] == [
        "A sentence that runs over the page break and continues here on page two."
    ]
    assert loaded.blocks[0].page == 1


def test_empty_password_encryption_opens(make_pdf):
    loaded = load_pdf(make_pdf([["Readable without a password."]], password=""), "e.pdf")
    assert loaded.blocks[0].text == "Readable without a password."


def test_password_protected_pdf_is_refused_with_the_fix(make_pdf):
    with pytest.raises(BadDocumentError, match=r"encrypted with a password.*Remove the password"):
        load_pdf(make_pdf([["Secret."]], password="s3cret"), "locked.pdf")


@pytest.mark.parametrize("cut", [0.5, 0.1])
def test_truncated_pdf_is_reported_as_damaged(make_pdf, cut):
    data = make_pdf([["Some text."]])
    with pytest.raises(BadDocumentError, match=r"damaged.*save or print it to a new PDF"):
        load_pdf(data[: int(len(data) * cut)], "cut.pdf")


def test_garbage_after_header_is_reported_as_damaged():
    with pytest.raises(BadDocumentError, match="damaged"):
        load_pdf(b"%PDF-1.7\n" + bytes(range(256)) * 4, "junk.pdf")


def test_not_a_pdf_at_all():
    with pytest.raises(BadDocumentError, match="is not a PDF"):
        load_pdf(b"hello, I am text", "fake.pdf")


def test_zero_pages(make_pdf):
    with pytest.raises(BadDocumentError, match="has no pages"):
        load_pdf(make_pdf([]), "none.pdf")


def test_image_only_pdf_asks_for_ocr(make_pdf):
    with pytest.raises(BadDocumentError, match=r"no text layer.*OCR"):
        load_pdf(make_pdf([[], []]), "scan.pdf")


def test_pages_without_text_are_warnings_not_errors(make_pdf):
    loaded = load_pdf(make_pdf([["Text on page one."], [], ["Text on page three."], []]), "mixed.pdf")
    assert [b.page for b in loaded.blocks] == [1, 3]
    assert loaded.warnings == [
        "Pages 2, 4 have no text layer (probably scanned images) and were skipped; "
        "run OCR on the PDF to include them."
    ]


def test_name_is_sanitised_in_messages(make_pdf):
    with pytest.raises(BadDocumentError) as info:
        load_pdf(make_pdf([[]]), "../../etc/evil\x1b[31m.pdf")
    assert "'evil[31m.pdf'" in str(info.value)
