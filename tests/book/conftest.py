"""Fixtures for the rendered book: the built site, a local web server, a headless browser.

The site is built once per session, and only when ``_build/html`` is missing or
was built from other files than the ones in the tree (``booktools.website.build.is_current``),
so ``make book && make test`` builds once. Under a file lock: pytest-xdist's workers
(``make test`` runs two) and the pytest runs that tests start share the one build,
the first to ask builds and the others wait for it. With ``CI=true`` a missing browser
fails the browser tests instead of skipping them.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import psutil
import pytest
import yaml
from filelock import FileLock

from booktools.pdf.printer import chromium
from booktools.project import BUILD_INPUTS, Project
from booktools.servers import serve
from booktools.website import build, editions

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
# Held while the site is checked and built (the ``site`` fixture): one build for every process.
SITE_LOCK = PROJECT.build_dir / "site.lock"


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
def site() -> Path:
    """The built site (``_build/html``), built now if missing or stale, by one process at a time."""
    SITE_LOCK.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(SITE_LOCK):
        if not build.is_current(PROJECT):
            result = subprocess.run(
                [sys.executable, "-m", "booktools", "book"],
                cwd=PROJECT.root,
                check=False,
                capture_output=True,
                text=True,
            )
            if result.returncode != 0:
                pytest.fail(f"make book failed:\n{result.stdout}\n{result.stderr}")
    return PROJECT.site_dir


@pytest.fixture(scope="session")
def printed_site(site: Path) -> Path:
    """The built site with its PDFs, which ``make book`` prints only where Chromium is installed."""
    if not CHROMIUM.exists():
        skip_or_fail(f"no browser at {CHROMIUM} to print the PDFs with (apt-get install chromium)")
    return site


@pytest.fixture(scope="session")
def built_editions(site: Path, book_config: dict) -> list[str]:
    """The language codes of the editions in the built site, English first."""
    codes = [edition.code for edition in editions.configured_editions(book_config)]
    return [code for code in codes if (site / code / "index.html").exists()]


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - the base class's name
        pass


@pytest.fixture(scope="session")
def site_url(site: Path) -> Iterator[str]:
    """The base URL of the built site, served by ``http.server`` on a free localhost port."""
    handler = functools.partial(_QuietHandler, directory=str(site))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


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


def copy_book_files(target: Path, names: tuple[str, ...] = BUILD_INPUTS) -> Path:
    """Copy ``names`` (files or folders of the repository) into ``target``; return ``target``.

    By default they are what a build of the book reads (``booktools.project.BUILD_INPUTS``),
    the package that runs it included.
    """
    for name in names:
        source, copy = PROJECT.root / name, target / name
        if source.is_dir():
            shutil.copytree(source, copy, ignore=shutil.ignore_patterns("__pycache__"), dirs_exist_ok=True)
        else:
            copy.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, copy)
    return target


@pytest.fixture
def scratch_book(tmp_path: Path) -> Path:
    """A scratch copy of what a build reads in which every configured edition exists.

    Editions whose folder is missing from the tree (translations not written
    yet) are filled with copies of the English pages.
    """
    copy_book_files(tmp_path)
    book = Project(tmp_path)
    for edition in editions.configured_editions(yaml.safe_load(book.config_file.read_text(encoding="utf-8"))):
        target = book.edition_dir(edition.code)
        if not target.is_dir():
            shutil.copytree(PROJECT.edition_dir("en"), target, ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
    return tmp_path
