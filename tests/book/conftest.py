"""Fixtures for the rendered book: the built site, a local web server, a headless browser.

The site is built once per session, and only when ``_build/html`` is missing or
was built from other files than the ones in the tree (``booktools.pipeline.stages.is_current``),
so ``make book && make test`` builds once. Under a file lock: pytest-xdist's workers
(``make test`` runs two) and the pytest runs that tests start share the one build,
the first to ask builds and the others wait for it. With ``CI=true`` a missing browser
fails the browser tests instead of skipping them.
"""

from __future__ import annotations

import functools
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import psutil
import pytest
import yaml

from booktools.configuration.config_file import configured_editions, parse
from booktools.programs import chromium
from booktools.project import Project
from booktools.runtime.static_server import serving_folder
from booktools.servers import serve

PROJECT = Project.here()

# Debian's chromium package; BOOK_CHROMIUM names another Chromium build (the one the PDFs are printed with).
CHROMIUM = chromium()
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
]
SCREENSHOTS = PROJECT.work_dir("screenshots")


def in_ci() -> bool:
    """Whether the tests run in CI, where nothing may be skipped for want of a tool."""
    return os.environ.get("CI", "").lower() in {"1", "true", "yes"}


def skip_or_fail(reason: str) -> None:
    """Skip the test on a developer's machine; fail it in CI."""
    if in_ci():
        pytest.fail(f"{reason} (CI=true: the book tests must run)")
    pytest.skip(reason)


@pytest.fixture(scope="session")
def book_config() -> dict:
    """The top-level ``_config.yml``."""
    return yaml.safe_load(PROJECT.config_file.read_text(encoding="utf-8"))


@pytest.fixture(scope="session")
def printed_site(site: Path) -> Path:
    """The built site with its PDFs, which ``make book`` prints only where Chromium is installed."""
    if not CHROMIUM.exists():
        skip_or_fail(f"no browser at {CHROMIUM} to print the PDFs with (apt-get install chromium)")
    return site


@pytest.fixture(scope="session")
def built_editions(site: Path, book_config: dict) -> list[str]:
    """The language codes of the editions in the built site, English first."""
    codes = [edition.code for edition in configured_editions(parse(book_config))]
    return [code for code in codes if (site / code / "index.html").exists()]


@pytest.fixture(scope="session")
def site_url(site: Path) -> Iterator[str]:
    """The base URL of the built site, served on a free 127.0.0.1 port (``booktools.runtime.static_server``)."""
    with serving_folder(site) as url:
        yield url


@pytest.fixture(scope="session")
def browser() -> Iterator[object]:
    """Debian's headless Chromium, driven by Playwright, with a fresh user-data folder."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        skip_or_fail("playwright is not installed")
    if not CHROMIUM.exists():
        skip_or_fail(f"no browser at {CHROMIUM} (apt-get install chromium)")
    profile = tempfile.mkdtemp(prefix="book-chromium-")
    with sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            profile,
            executable_path=str(CHROMIUM),
            headless=True,
            args=CHROMIUM_ARGS,
            viewport={"width": 1280, "height": 900},
        )
        try:
            yield context
        finally:
            context.close()
            shutil.rmtree(profile, ignore_errors=True)


def guarded_tab(browser, allowed: tuple[str, ...]):
    """A new browser tab in which every request that goes to none of the ``allowed`` URL prefixes is
    blocked and recorded in ``tab.external_requests``; page errors are kept in ``tab.errors``."""
    tab = browser.new_page()
    external: list[str] = []

    def block_outside(route) -> None:
        if route.request.url.startswith(allowed):
            route.continue_()
        else:
            external.append(route.request.url)
            route.abort()

    tab.route("**/*", block_outside)
    tab.external_requests = external
    tab.errors = []
    tab.on("pageerror", lambda error: tab.errors.append(str(error)))
    return tab


@pytest.fixture
def new_guarded_tab(browser):
    """``guarded_tab`` for this session's browser: call it with the allowed URL prefixes."""
    return functools.partial(guarded_tab, browser)


@pytest.fixture
def page(browser, site_url: str) -> Iterator[object]:
    """A browser tab in which every request that leaves the local site is blocked and recorded.

    ``page.external_requests`` lists them: the book must read without a network.
    """
    tab = guarded_tab(browser, (site_url,))
    try:
        yield tab
    finally:
        tab.close()


# Images load lazily (booktools.website.extension.image_sizes): scroll to each image the page shows (the
# other frameworks' tabs are hidden), a frame at a time, as a reader scrolling down would.
SCROLL_TO_SHOWN_IMAGES = """async () => {
    const frame = () => new Promise(resolve => requestAnimationFrame(() => requestAnimationFrame(resolve)));
    for (const image of document.querySelectorAll("main img")) {
        if (image.checkVisibility()) { image.scrollIntoView(); await frame(); }
    }
    window.scrollTo(0, 0);
}"""
SHOWN_IMAGES = "[...document.querySelectorAll('main img')].filter(image => image.checkVisibility())"


@pytest.fixture(scope="session")
def load_shown_images() -> Callable[[Any], list[tuple[str, int]]]:
    """A function that scrolls a page to every image it shows and waits until each has loaded.

    It returns each shown image's ``src`` and natural width.
    """

    def load(page: Any) -> list[tuple[str, int]]:
        page.evaluate(SCROLL_TO_SHOWN_IMAGES)
        page.wait_for_function(f"() => {SHOWN_IMAGES}.every(image => image.complete)", timeout=20_000)
        return [tuple(pair) for pair in page.evaluate(f"() => {SHOWN_IMAGES}.map(i => [i.src, i.naturalWidth])")]

    return load


@pytest.fixture(scope="module")
def live(site: Path, request: pytest.FixtureRequest) -> Iterator[serve.Servers]:
    """``make serve``'s servers, one pair per test module; afterwards, every process they started is gone."""
    started: set[int] = set()
    log = PROJECT.build_dir / f"{request.module.__name__.rsplit('.', 1)[-1]}-jupyter.log"
    with serve.serving(PROJECT, site, log=log) as servers:
        try:
            yield servers
        finally:
            started.update(serve.process_tree(servers.process.pid))
    left = [pid for pid in started if psutil.pid_exists(pid) and psutil.Process(pid).status() != "zombie"]
    assert left == [], f"processes left behind by the servers: {left}"


@pytest.fixture
def fresh_storage(page, site_url: str) -> Iterator[None]:
    """Forget the framework an earlier test chose (the browser profile lasts the session)."""

    def forget() -> None:
        page.goto(f"{site_url}/index.html", wait_until="load")
        page.evaluate("() => window.localStorage.clear()")

    forget()
    yield
    forget()


@pytest.fixture(scope="session")
def screenshots() -> Path:
    """The folder screenshots are written to (``_build/screenshots``)."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    return SCREENSHOTS


@pytest.fixture
def scratch_book(book_copy: Project) -> Path:
    """A scratch copy of what a build reads in which every configured edition exists.

    Editions whose folder is missing from the tree (translations not written
    yet) are filled with copies of the English pages.
    """
    for edition in configured_editions(book_copy.config()):
        target = book_copy.edition_dir(edition.code)
        if not target.is_dir():
            shutil.copytree(PROJECT.edition_dir("en"), target, ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
    return book_copy.root
