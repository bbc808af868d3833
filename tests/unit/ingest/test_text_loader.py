import codecs

import pytest

from backend.errors import BadDocumentError
from backend.ingest.text_loader import decode_text, load_text, split_paragraphs


def test_paragraphs_split_on_blank_lines_and_wrapped_lines_joined():
    data = b"First line\r\nwraps here.\r\n\r\n  \r\nSecond paragraph.\n\n\n\nThird\tone.\n"
    loaded = load_text(data, "notes.txt")
    assert [b.text for b in loaded.blocks] == ["First line wraps here.", "Second paragraph.", "Third one."]
    assert loaded.source_type == "text"
    assert loaded.title is None
    assert loaded.warnings == []


def test_old_mac_line_endings_and_form_feeds():
    assert split_paragraphs("a\rb\r\rc\fd") == ["a b", "c", "d"]


@pytest.mark.parametrize(
    "data",
    [
        codecs.BOM_UTF8 + "Café déjà vu.".encode(),
        "Café déjà vu.".encode("utf-16"),  # writes a BOM
        codecs.BOM_UTF16_BE + "Café déjà vu.".encode("utf-16-be"),
        "Café déjà vu.".encode(),
    ],
)
def test_decodes_bom_and_utf8(data):
    text, warnings = decode_text(data, "x.txt")
    assert text == "Café déjà vu."
    assert warnings == []


def test_cp1252_fallback_warns():
    text, warnings = decode_text("“Smart quotes” and café.".encode("cp1252"), "old.txt")
    assert text == "“Smart quotes” and café."
    assert len(warnings) == 1 and "not valid UTF-8" in warnings[0] and "Windows-1252" in warnings[0]


def test_latin1_fallback_when_cp1252_cannot_decode():
    text, warnings = decode_text(b"caf\xe9 au lait, \x81 once. " * 3, "odd.txt")
    assert text.startswith("café")
    assert "Latin-1" in warnings[0]


@pytest.mark.parametrize("data", [b"abc\x00def", bytes(range(1, 32)) * 50, b"\x89PNG\r\n\x1a\n" + bytes(200)])
def test_binary_is_rejected(data):
    with pytest.raises(BadDocumentError, match="binary file"):
        load_text(data, "image.txt")
