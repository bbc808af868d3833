"""A real browser (Debian chromium via Playwright) uploads a document, asks, and sees a cited answer."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.conftest import REPO_ROOT, SAMPLES
from tests.e2e.streamlit_server import running_app

pytestmark = pytest.mark.e2e
ARTIFACTS = REPO_ROOT / "test-artifacts"
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_FLAGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture(scope="module")
def app_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with running_app(tmp_path_factory.mktemp("e2e"), STUDIO_LLM_MAX_TOKENS="60") as (url, _):
        yield url


needs_chromium = pytest.mark.skipif(
    not Path(CHROMIUM).exists(), reason="Debian chromium is not installed (make test installs it)"
)


@contextmanager
def browser_page(name: str) -> Iterator[Page]:
    """A fresh headless page; on failure its screenshot is kept as a test artifact."""
    from playwright.sync_api import sync_playwright

    ARTIFACTS.mkdir(exist_ok=True)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        try:
            yield page
        except Exception:
            page.screenshot(path=str(ARTIFACTS / f"{name}-failure.png"), full_page=True)
            raise
        finally:
            browser.close()


def _open_library(page: Page, url: str) -> None:
    page.goto(url)
    expect(page.get_by_role("heading", name="Library")).to_be_visible(timeout=120_000)


@needs_chromium
def test_corrupt_upload_gets_a_clear_message(app_url: str, tmp_path: Path) -> None:
    broken = tmp_path / "broken.pdf"
    broken.write_bytes(b"%PDF-1.7\n1 0 obj << /Type /Catalog >> trailer garbage")
    with browser_page("e2e-corrupt") as page:
        _open_library(page, app_url)
        page.locator("input[type=file]").set_input_files(str(broken))
        expect(page.get_by_role("button", name="Remove broken.pdf")).to_be_visible(timeout=30_000)
        page.get_by_role("button", name="Index uploaded files").click()
        expect(page.get_by_text("broken.pdf: [E300]", exact=False).first).to_be_visible(timeout=60_000)
        expect(page.get_by_text("Traceback")).to_have_count(0)


@needs_chromium
def test_upload_ask_and_see_a_cited_answer(app_url: str) -> None:
    sample = next(p for p in sorted(SAMPLES.iterdir()) if p.suffix == ".md")
    with browser_page("e2e-ask") as page:
        _open_library(page, app_url)
        page.locator("input[type=file]").set_input_files(str(sample))
        expect(page.get_by_role("button", name=f"Remove {sample.name}")).to_be_visible(timeout=30_000)
        page.get_by_role("button", name="Index uploaded files").click()
        expect(page.get_by_text("indexed", exact=False).first).to_be_visible(timeout=180_000)

        page.get_by_role("link", name="Ask").click()
        expect(page.get_by_role("heading", name="Ask")).to_be_visible(timeout=60_000)
        page.get_by_test_id("stSelectbox").filter(has_text="Method").locator("input").click()
        page.get_by_role("option", name="Standard RAG").click()  # the default is extractive here
        page.get_by_label("Question", exact=True).fill("How many electric buses did the city buy?")
        page.get_by_role("button", name="Ask", exact=True).click()
        expect(page.get_by_text("Passages given to the model").first).to_be_visible(timeout=240_000)
        expect(page.get_by_text("produced by", exact=False).first).to_be_visible()
        expect(page.get_by_text("Sources cited")).to_have_count(1)
        expect(page.get_by_text(f"[1] {sample.name}", exact=False).first).to_be_visible()
        page.wait_for_timeout(500)
        page.screenshot(path=str(ARTIFACTS / "e2e-ask.png"), full_page=True)


@needs_chromium
def test_concurrent_sessions_share_the_server_without_mixing_results(tmp_path: Path) -> None:
    """Three browser sessions upload and ask at the same time; each sees only its own document."""
    import asyncio

    from tests.e2e.sessions import mixups, run_sessions

    with running_app(tmp_path) as (url, _):
        results, _elapsed = asyncio.run(
            run_sessions(url, tmp_path, 3, 2, CHROMIUM, CHROMIUM_FLAGS, "Extractive (offline, no LLM)")
        )
    assert [r.error for r in results] == ["", "", ""]
    assert all(len(r.answers) == 2 for r in results)
    assert mixups(results) == []


HOSTILE_MARKDOWN = """# Hostile notes

The harbour budget rose by 12 percent. <script>window.__pwned = "script"</script>
<img src="x" onerror="window.__pwned = 'img'"> Staffing fell because two teams merged.

[click me](javascript:window.__pwned='link') and
<iframe srcdoc="<script>parent.__pwned='frame'</script>"></iframe>
"""


@needs_chromium
def test_document_markup_is_shown_as_text_and_never_runs(tmp_path: Path) -> None:
    """Script, event handlers and javascript: links in a document stay inert text on every view."""
    hostile = tmp_path / "hostile.md"
    hostile.write_text(HOSTILE_MARKDOWN, encoding="utf-8")
    with running_app(tmp_path) as (url, _), browser_page("e2e-hostile") as page:
        dialogs: list[str] = []
        page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
        _open_library(page, url)
        page.locator("input[type=file]").set_input_files(str(hostile))
        expect(page.get_by_role("button", name="Remove hostile.md")).to_be_visible(timeout=30_000)
        page.get_by_role("button", name="Index uploaded files").click()
        expect(page.get_by_text("hostile.md: indexed", exact=False)).to_be_visible(timeout=180_000)
        page.get_by_role("link", name="Ask").click()
        expect(page.get_by_role("heading", name="Ask")).to_be_visible(timeout=60_000)
        page.get_by_test_id("stSelectbox").filter(has_text="Method").locator("input").click()
        page.get_by_role("option", name="Extractive (offline, no LLM)").click()
        page.get_by_label("Question", exact=True).fill("Why did staffing fall?")
        page.get_by_role("button", name="Ask", exact=True).click()
        expect(page.get_by_text("Question: Why did staffing fall?")).to_be_visible(timeout=120_000)
        for expander in page.get_by_test_id("stExpander").all():
            expander.locator("summary").click()
        expect(page.get_by_text("window.__pwned", exact=False).first).to_be_visible()
        page.wait_for_timeout(1000)
        frames = [page.main_frame, *page.frames]
        assert all(f.evaluate("() => window.__pwned === undefined") for f in frames)
        assert page.locator("[data-testid=stMain] script, [data-testid=stMain] img[onerror]").count() == 0
        assert dialogs == []
