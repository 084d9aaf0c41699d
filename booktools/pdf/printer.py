"""Print documents to PDF with Chromium's print engine, offline, in one headless browser.

One tab per edition, side by side. The built site is served by ``http.server`` on 127.0.0.1 (fonts and scripts load
from it as they do for a reader); each print document is answered from memory at
a URL inside its edition's folder (``<code>/print.html``), so that its relative
paths resolve as the pages' do. Every other request is refused: nothing leaves
the machine. The math is typeset at build time (KaTeX), so the printer waits
for the fonts only. Then it prints the document once per framework: it sets
``data-pdf-framework`` on ``<html>`` (``booktools.pdf.document`` hides the other
frameworks' content by it) and the document's title, the PDF's title, and
``page.pdf`` writes a tagged PDF with an outline (bookmarks) made from the
headings, and page numbers in the footer.

Chromium is the one ``booktools.programs.chromium`` names: the same browser the tests drive.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from booktools.programs import CHROMIUM_VARIABLE, chromium
from booktools.runtime.static_server import serving_folder

CHROMIUM_ARGS = ("--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run")
PAPER = {"format": "A4", "margin": {"top": "18mm", "bottom": "20mm", "left": "18mm", "right": "18mm"}}
FOOTER = (
    '<div style="width:100%;font-size:8pt;text-align:center;color:#555">'
    '<span class="pageNumber"></span> / <span class="totalPages"></span></div>'
)
FONTS_DONE = "() => document.fonts.ready.then(() => true)"
# Show one framework's content ([attribute, framework, title]); wait for the fonts it may need.
SHOW_FRAMEWORK = (
    "([attribute, framework, title]) => { document.documentElement.setAttribute(attribute, framework); "
    "document.title = title; return document.fonts.ready.then(() => true); }"
)
LOAD_TIMEOUT_MS = 120_000


@dataclass(frozen=True)
class PdfOutput:
    """One PDF of a document: the framework it shows, its title and its file."""

    framework: str
    title: str
    target: Path


@dataclass(frozen=True)
class PrintJob:
    """One document to print: where it is served in the site, its HTML and its PDFs."""

    path: str  # "ko/print.html", inside the edition's folder
    html: str
    attribute: str  # the attribute of <html> that chooses the framework shown
    outputs: tuple[PdfOutput, ...]


def print_pdfs(site: Path, makers: Sequence[Callable[[], PrintJob]]) -> float:
    """Print the jobs ``makers`` make with one headless Chromium over ``site``; return the seconds it took.

    The jobs are made one after the other in a worker thread while the ones made
    already load and print, each in a tab of its own: Chromium renders the tabs
    in processes of their own, so the documents print side by side.

    Raises:
        FileNotFoundError: if there is no Chromium (``chromium()``).
        playwright.async_api.Error: if a document does not load or print.
    """
    browser_path = chromium()
    if not browser_path.exists():
        raise FileNotFoundError(f"no Chromium at {browser_path} (apt-get install chromium, or set {CHROMIUM_VARIABLE})")
    start = time.perf_counter()
    with serving_folder(site) as base:
        asyncio.run(_print_all(browser_path, base, makers))
    return time.perf_counter() - start


async def _print_all(browser_path: Path, base: str, makers: Sequence[Callable[[], PrintJob]]) -> None:
    from playwright.async_api import Route, async_playwright

    documents: dict[str, str] = {}

    async def answer(route: Route) -> None:
        url = route.request.url
        if url in documents:
            await route.fulfill(status=200, content_type="text/html; charset=utf-8", body=documents[url])
        elif url.startswith(f"{base}/"):
            await route.continue_()
        else:
            await route.abort()  # offline: nothing but the site

    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=str(browser_path), args=list(CHROMIUM_ARGS))
        try:
            context = await browser.new_context()
            await context.route("**/*", answer)
            loop = asyncio.get_running_loop()
            with ThreadPoolExecutor(max_workers=1) as pool:
                jobs = [loop.run_in_executor(pool, make) for make in makers]
                await asyncio.gather(*(_print_job(context, base, documents, job) for job in jobs))
        finally:
            await browser.close()


async def _print_job(context: Any, base: str, documents: dict[str, str], made: asyncio.Future[PrintJob]) -> None:
    job = await made
    url = f"{base}/{job.path}"
    documents[url] = job.html
    page = await context.new_page()
    await page.goto(url, wait_until="load", timeout=LOAD_TIMEOUT_MS)
    await page.evaluate(FONTS_DONE)
    for output in job.outputs:
        await page.evaluate(SHOW_FRAMEWORK, [job.attribute, output.framework, output.title])
        output.target.parent.mkdir(parents=True, exist_ok=True)
        await page.pdf(
            path=output.target,
            **PAPER,
            print_background=True,
            display_header_footer=True,
            header_template="<span></span>",
            footer_template=FOOTER,
            outline=True,
            tagged=True,
        )
    await page.close()
