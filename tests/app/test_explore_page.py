"""The Explore page and the Ask view of DISRetrieval through AppTest, on the embedded defaults."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from backend.config import Settings
from backend.studio import Studio
from tests.conftest import REPO_ROOT
from tests.unit.routing.helpers import build_sized_pdf
from tests.unit.routing.test_routing_structure_trees import PAPER_PAGES

pytestmark = pytest.mark.integration
MAIN = str(REPO_ROOT / "app" / "main.py")
HOSTILE = (
    "# Hostile notes\n\nThe budget grew by 4 percent. <img src=x onerror=alert(1)> was pasted here.\n\n"
    "A <script>alert('x')</script> tag follows. The board approved the plan.\n"
)


@pytest.fixture
def app_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("STUDIO_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("STUDIO_CONFIG", str(tmp_path / "studio.toml"))
    monkeypatch.setenv("STUDIO_LLM_MAX_TOKENS", "40")
    return tmp_path


HEADED = (
    "<html><body><h1>Depot notes</h1><h2>Costs &lt;img src=x onerror=alert(1)&gt;</h2>"
    "<p>The budget grew by 4 percent.</p><h2>Winter</h2><p>Range drops in the cold.</p></body></html>"
)


def _markdown(at: AppTest) -> str:
    return "\n".join(str(m.value) for m in at.markdown)


def test_explore_builds_the_tree_with_progress_then_highlights_a_questions_evidence(app_env: Path) -> None:
    at = AppTest.from_file(MAIN, default_timeout=240).run()
    at.button(key="library_samples").click().run()
    at.switch_page("views/explore.py").run()
    assert not at.exception and at.title[0].value == "Explore"
    assert len(at.selectbox(key="explore_doc").options) == 2
    assert any("not built yet" in i.value for i in at.info)
    at.button(key="explore_build").click().run()
    assert not at.exception and not at.error
    assert any("Built in" in s.value for s in at.success)
    captions = " ".join(c.value for c in at.caption)
    assert "trained-sentence-parser" in captions and "merge" in captions
    tree = _markdown(at)
    assert 'class="disr-tree"' in tree and "<details" in tree and "depth 0" in tree
    assert "★" not in tree, "nothing is highlighted before a question"

    at.text_input(key="explore_question").input("How much does an electric bus cost?")
    at.button(key="explore_find").click().run()
    assert not at.exception and not at.error
    page = _markdown(at)
    assert "★ rank 1" in page and "✔ selected" in page and "<mark>" in page
    assert at.dataframe[-1].value.shape[0] > 0

    at.run()  # a rerun loads the built tree from the cache, without a button
    assert not any("not built yet" in i.value for i in at.info)


def test_document_markup_is_shown_as_text_never_run(app_env: Path) -> None:
    studio = Studio(Settings(data_dir=app_env / "data"))
    studio.indexer.index_file(HOSTILE.encode(), "hostile.txt")  # plain text keeps the markup
    at = AppTest.from_file(MAIN, default_timeout=240).run()
    at.switch_page("views/explore.py").run()
    at.button(key="explore_build").click().run()
    assert not at.exception and not at.error
    page = _markdown(at)
    assert "&lt;img src=x onerror=alert(1)&gt;" in page and "&lt;script&gt;" in page
    assert "<img" not in page and "<script" not in page


def test_ask_with_disretrieval_shows_the_tree_retrieval_tab(app_env: Path) -> None:
    at = AppTest.from_file(MAIN, default_timeout=240).run()
    at.button(key="library_samples").click().run()
    at.switch_page("views/ask.py").run()
    at.selectbox(key="ask_method").set_value("disretrieval").run()
    at.text_input(key="ask_question").input("How much does an electric bus cost?")
    at.button(key="ask_submit").click().run()
    assert not at.exception and not at.error
    assert "Tree retrieval" in [t.label for t in at.tabs]
    captions = " ".join(c.value for c in at.caption).replace("\\", "")  # captions are escaped
    assert "Merge-only node texts" in captions and "shape by `trained-sentence-parser" in captions
    costs = at.dataframe[-1].value
    assert list(costs["stage"]) == ["build trees", "retrieve", "generate"]


def test_the_heading_tree_is_shown_without_a_question_with_where_its_headings_came_from(
    app_env: Path,
) -> None:
    studio = Studio(Settings(data_dir=app_env / "data"))
    headed = studio.indexer.index_file(HEADED.encode(), "depot.html").doc_id
    paper = studio.indexer.index_file(build_sized_pdf(PAPER_PAGES), "paper.pdf").doc_id
    flat = studio.indexer.index_file(HOSTILE.encode(), "hostile.txt").doc_id
    at = AppTest.from_file(MAIN, default_timeout=240).run()
    at.switch_page("views/explore.py").run()
    expected = {
        headed: ("document headings", "html headings", "Costs &lt;img src=x onerror=alert(1)&gt;"),
        paper: ("PDF layout cues", "pdf layout cues (font size, numbering)", "1.1 Scope"),
        flat: ("flat fallback: no headings found", "no headings found: one flat section", "&lt;script&gt;"),
    }
    for doc_id, (source, producer, text) in expected.items():
        at.selectbox(key="explore_doc").set_value(doc_id).run()
        assert not at.exception and not at.error
        tree = at.expander[0]
        assert tree.label == "Heading tree (what RDR2 routes over)"
        caption = tree.caption[0].value.replace("\\", "")  # captions are escaped
        assert f"Source: **{source}** (producer: {producer})" in caption
        html = "\n".join(str(m.value) for m in tree.markdown)
        assert 'class="route-tree"' in html and '<details open data-node="0">' in html and text in html
        assert "<img" not in html and "<script" not in html
        assert any("not built yet" in i.value for i in at.info), "no tree build or question was needed"
    assert "¶ content" in html and '<span class="nid">0:</span>' in html
