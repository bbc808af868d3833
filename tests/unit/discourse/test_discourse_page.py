"""The Discourse page end to end with the real embedder and the committed weights."""

from pathlib import Path

from streamlit.testing.v1 import AppTest

PAGE = str(Path(__file__).resolve().parents[3] / "app" / "views" / "discourse.py")
TEXT = (
    "The library opened in 1901. It was funded by a local merchant.\n\n"
    "However, the building burned down in 1920. A new one was built two years later, "
    "because the town had grown."
)


def _frames(at: AppTest) -> list[str]:
    """HTML of the page's iframes (AppTest has no typed accessor for st.iframe)."""
    return [e.proto.srcdoc for e in at.main if getattr(e, "type", "") == "iframe"]


def test_pasted_text_renders_a_tree() -> None:
    at = AppTest.from_file(PAGE, default_timeout=60).run()
    assert not at.exception
    assert at.info  # asks for text first
    at.text_area(key="discourse_text").input(TEXT)
    at.button(key="discourse_parse").click().run()
    assert not at.exception and not at.error
    (frame,) = _frames(at)
    assert "<svg" in frame and "rst-edge rst-N" in frame
    assert "<title>The library opened in 1901.</title>" in frame
    assert any("Produced by: trained-sentence-parser:gum-v2" in c.value for c in at.caption)
    assert "4 sentences in 2 paragraphs" in " ".join(c.value for c in at.caption)
    at.radio(key="discourse_names").set_value("Disco-RAG labels").run()
    assert not at.exception and len(_frames(at)) == 1


def test_empty_input_asks_for_text() -> None:
    at = AppTest.from_file(PAGE, default_timeout=60).run()
    at.button(key="discourse_parse").click().run()
    assert not at.exception and not at.error
    assert any("Paste some text" in i.value for i in at.info)
