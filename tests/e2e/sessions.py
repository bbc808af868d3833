"""Several browser sessions at once against one studio server: each uploads its own document and asks.

Each session gets a made-up project with a number only its document states, so an answer
that shows another session's number or document is a mix-up, not a retrieval miss. Used by
the concurrency test (small) and benchmarks/load_test.py (bigger, with figures).
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from pathlib import Path

PROJECTS = (
    "Heron", "Juniper", "Basalt", "Quokka", "Marigold", "Tundra", "Saffron", "Osprey",
    "Cobalt", "Lichen", "Walrus", "Peony",
)  # fmt: skip


@dataclass
class SessionResult:
    project: str
    engineers: int
    upload_s: float = 0.0
    ask_s: list[float] = field(default_factory=list)
    answers: list[str] = field(default_factory=list)
    error: str = ""


def project_document(project: str, engineers: int) -> str:
    return (
        f"# The {project} project\n\n"
        f"The {project} project employs exactly {engineers} engineers at its main site. "
        f"Its budget was approved in March after a long review.\n\n"
        f"## Risks\n\nThe {project} team reports that supply delays are the main risk this year. "
        f"However, the steering group expects them to ease by autumn.\n"
    )


async def _session(browser, url: str, workdir: Path, index: int, questions: int, method_title: str):
    from playwright.async_api import expect

    project = PROJECTS[index % len(PROJECTS)] + (f"-{index}" if index >= len(PROJECTS) else "")
    result = SessionResult(project, 100 + 37 * index)
    path = workdir / f"{project.lower()}.md"
    path.write_text(project_document(project, result.engineers), encoding="utf-8")
    context = await browser.new_context(viewport={"width": 1300, "height": 900})
    page = await context.new_page()
    try:
        await page.goto(url)
        await expect(page.get_by_role("heading", name="Library")).to_be_visible(timeout=180_000)
        started = time.perf_counter()
        await page.locator("input[type=file]").set_input_files(str(path))
        await expect(page.get_by_role("button", name=f"Remove {path.name}")).to_be_visible(timeout=60_000)
        await page.get_by_role("button", name="Index uploaded files").click()
        await expect(page.get_by_text(f"{path.name}: indexed", exact=False)).to_be_visible(timeout=300_000)
        result.upload_s = time.perf_counter() - started

        await page.get_by_role("link", name="Ask").click()
        await expect(page.get_by_role("heading", name="Ask")).to_be_visible(timeout=120_000)
        await page.get_by_text("Chosen documents").click()
        await page.get_by_test_id("stMultiSelect").locator("input").click()
        await page.get_by_role("option", name=path.name).click()
        await page.keyboard.press("Escape")
        await page.get_by_test_id("stSelectbox").filter(has_text="Method").locator("input").click()
        await page.get_by_role("option", name=method_title).click()
        for number in range(questions):
            question = f"How many engineers does the {project} project employ? ({number + 1})"
            await page.get_by_label("Question", exact=True).fill(question)
            started = time.perf_counter()
            await page.get_by_role("button", name="Ask", exact=True).click()
            await expect(page.get_by_text(f"Question: {question}")).to_be_visible(timeout=300_000)
            result.ask_s.append(time.perf_counter() - started)
            result.answers.append(await page.get_by_test_id("stMain").inner_text())
    except Exception as error:  # a failed session is a result to report, not a crash of the run
        result.error = f"{type(error).__name__}: {str(error).splitlines()[0]}"
        await page.screenshot(path=str(workdir / f"session-{index}-failure.png"), full_page=True)
    finally:
        await context.close()
    return result


async def run_sessions(
    url: str,
    workdir: Path,
    sessions: int,
    questions: int,
    chromium: str,
    flags: list[str],
    method_title: str,
    first: int = 0,
) -> tuple[list[SessionResult], float]:
    """All sessions at once in one headless browser (separate contexts = separate Streamlit sessions)."""
    from playwright.async_api import async_playwright

    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=chromium, args=flags)
        started = time.perf_counter()
        results = await asyncio.gather(
            *(
                _session(browser, url, workdir, i, questions, method_title)
                for i in range(first, first + sessions)
            )
        )
        elapsed = time.perf_counter() - started
        await browser.close()
    return list(results), elapsed


def mixups(results: list[SessionResult]) -> list[str]:
    """Answer pages that show another session's project, or miss their own number."""
    found = []
    for result in results:
        others = [r for r in results if r is not result]
        for answer in result.answers:
            for other in others:
                if f"{other.project} project" in answer or str(other.engineers) in answer:
                    found.append(f"{result.project} saw {other.project}")
            if str(result.engineers) not in answer:
                found.append(f"{result.project} did not see its own number")
    return found
