"""A real browser (Debian chromium via Playwright) uploads a document, asks, and sees a cited answer."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.conftest import REPO_ROOT, SAMPLES
from tests.integration.conftest import free_port

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
    data = tmp_path_factory.mktemp("e2e")
    port = free_port()
    env = {
        **os.environ,
        "STUDIO_DATA_DIR": str(data / "data"),
        "STUDIO_CONFIG": str(data / "studio.toml"),
        "STUDIO_LLM_MAX_TOKENS": "60",
    }
    log = (data / "streamlit.log").open("w")
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "streamlit",
            "run",
            str(REPO_ROOT / "app" / "main.py"),
            "--server.port",
            str(port),
            "--server.headless",
            "true",
        ],
        cwd=REPO_ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 90
        while True:
            try:
                with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as reply:
                    if reply.status == 200:
                        break
            except OSError:
                if time.monotonic() > deadline or proc.poll() is not None:
                    raise RuntimeError(f"streamlit did not start; see {data / 'streamlit.log'}") from None
                time.sleep(0.5)
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        log.close()


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
        page.get_by_label("Question", exact=True).fill("How many electric buses did the city buy?")
        page.get_by_role("button", name="Ask", exact=True).click()
        expect(page.get_by_text("Passages given to the model").first).to_be_visible(timeout=240_000)
        expect(page.get_by_text("produced by", exact=False).first).to_be_visible()
        expect(page.get_by_text("Sources cited")).to_have_count(1)
        expect(page.get_by_text(f"[1] {sample.name}", exact=False).first).to_be_visible()
        page.wait_for_timeout(500)
        page.screenshot(path=str(ARTIFACTS / "e2e-ask.png"), full_page=True)
