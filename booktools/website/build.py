"""Build every language edition of the book into one site (``make book``).

``_config.yml`` and ``_toc.yml`` are the only configuration. For each edition
listed under ``editions`` and present under ``chapters/<code>/``, a derived
configuration and table of contents go to ``_build/editions/<code>/``; they differ
from the top-level ones only in the language (``<html lang>``, the theme's strings,
the search index) and title, the table of contents' page paths, the Colab path
(``repository.path_to_book``), the language switcher's values and absolute paths.

Each edition is built from a renderable copy of ``chapters/<code>/``
(``booktools.website.pages``: framework cells marked for the tabs) by ``jupyter-book
build`` from scratch, with warnings as errors, nitpicky references and
``--keep-going`` (a broken reference, a duplicate label or a missing citation fails
the build), without executing the notebooks: stored outputs are rendered as they are.

A build's problems are what Sphinx and Jupyter Book report, never a line that
something else prints: the derived configuration is validated against Jupyter
Book's schema, and an edition fails when ``jupyter-book build`` exits non-zero or
Sphinx wrote a warning to ``_build/editions/<code>/warnings.txt``
(``booktools.website.theme.warning_file``). Notes that imported libraries print on
some CPUs (TensorFlow's ``absl::InitializeLog()``) stay in the log and fail nothing.
The editions are copied to ``_build/html/<code>/`` beside a landing page that links
them, with each edition's slides (``booktools.slides.decks``) and PDFs
(``booktools.pdf``), the preview image, ``sitemap.xml`` and ``robots.txt``
(``booktools.website.preview_image``, ``booktools.website.sitemap``).

Usage::

    python -m booktools book
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from booktools.project import SITE_FILES, Project
from booktools.sources import config as book_config
from booktools.sources.config import Edition
from booktools.sources.strings import load_strings
from booktools.website import site_url
from booktools.website.api_docs import with_api_page
from booktools.website.editions import (
    BuildError,
    edition_config,
    edition_toc,
    editions_to_build,
    load_yaml,
)
from booktools.website.landing import pdf_links, write_landing
from booktools.website.pages import SOURCE_ERRORS, write_edition_sources
from booktools.website.preview_image import write_preview_image
from booktools.website.sitemap import SitemapError, write_robots, write_sitemap
from booktools.website.theme.settings import with_warning_file

BUILD_FLAGS = ("-W", "-n", "--keep-going", "--all")
ANSI_ESCAPE = re.compile(r"\x1b\[[0-9;]*m")
WARNING_FILE = "warnings.txt"
# When jupyter-book fails without a warning (a crash), this many lines of the end of its log say why.
LOG_TAIL_LINES = 25


@dataclass(frozen=True)
class EditionResult:
    """The outcome of one edition's ``jupyter-book build``."""

    edition: Edition
    returncode: int
    log: Path
    problems: list[str]


@dataclass(frozen=True)
class EditionRun:
    """One edition's ``jupyter-book build``, ready to run: its command, log and warning file."""

    edition: Edition
    command: list[str]
    log: Path
    warnings: Path
    cwd: Path


def stamp_path(project: Project) -> Path:
    """Return the file recording which inputs the current site was built from."""
    return project.build_dir / "book.stamp"


def jupyter_book_command() -> str:
    """Return the ``jupyter-book`` executable of the running Python environment."""
    beside = Path(sys.executable).parent / "jupyter-book"
    found = str(beside) if beside.exists() else shutil.which("jupyter-book")
    if not found:
        raise BuildError("jupyter-book is not installed (make setup installs requirements.txt)")
    return found


def invalid_config(derived: dict[str, Any]) -> str:
    """Return Jupyter Book's schema errors in an edition's configuration ("" when it is valid).

    ``jupyter-book build`` only prints them as a warning box and builds on; here they fail the edition.
    """
    import jsonschema
    from jupyter_book.config import validate_yaml

    try:
        validate_yaml(derived, raise_on_errors=True)
    except jsonschema.ValidationError as error:
        return f"_config.yml does not follow Jupyter Book's schema:\n{error.message}"
    return ""


def prepare_edition(
    edition: Edition, config: dict[str, Any], toc: dict[str, Any], built: list[Edition], project: Project
) -> EditionRun | EditionResult:
    """Write one edition's configuration, table of contents and sources under ``_build/editions/<code>/``.

    Returns the ``jupyter-book build`` to run, or the failed result when the edition cannot be built.
    """
    work = project.work_dir("editions") / edition.code
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    config_file, toc_file, log = work / "_config.yml", work / "_toc.yml", work / "build.log"
    warnings = work / WARNING_FILE
    derived = edition_config(config, edition, built, project)
    with_warning_file(derived, warnings)
    invalid = invalid_config(derived)
    if invalid:
        log.write_text(f"ERROR: {invalid}\n", encoding="utf-8")
        return EditionResult(edition, 1, log, [f"ERROR: {invalid}"])
    header = "# Derived by booktools.website.build from the top-level file; do not edit.\n"
    config_file.write_text(header + yaml.safe_dump(derived, allow_unicode=True, sort_keys=False), encoding="utf-8")
    # The API appendix (booktools.website.api_docs) is generated into each edition's copy, after the pages.
    toc_file.write_text(header + yaml.safe_dump(with_api_page(toc), sort_keys=False), encoding="utf-8")
    try:
        source = write_edition_sources(project.chapters / edition.code, work / "src", project)
    except (*SOURCE_ERRORS, book_config.ConfigError) as error:
        log.write_text(f"ERROR: {error}\n", encoding="utf-8")
        return EditionResult(edition, 1, log, [f"ERROR: {error}"])
    command = [jupyter_book_command(), "build", str(source), "--path-output", str(work), "--config"]
    return EditionRun(
        edition, [*command, str(config_file), "--toc", str(toc_file), *BUILD_FLAGS], log, warnings, project.root
    )


def run_edition(prepared: EditionRun | EditionResult) -> EditionResult:
    """Run a prepared edition's ``jupyter-book build`` (a failed preparation is returned as it is)."""
    if isinstance(prepared, EditionResult):
        return prepared
    with prepared.log.open("w", encoding="utf-8") as output:
        process = subprocess.run(prepared.command, cwd=prepared.cwd, stdout=output, stderr=subprocess.STDOUT)
    problems = build_problems(process.returncode, prepared.warnings, prepared.log)
    return EditionResult(prepared.edition, process.returncode, prepared.log, problems)


def build_problems(returncode: int, warnings: Path, log: Path) -> list[str]:
    """Return what Sphinx reported in ``warnings``; for a failed build without one, the end of ``log``."""
    reported = warnings.read_text(encoding="utf-8").splitlines() if warnings.exists() else []
    problems = [line for line in reported if line.strip()]
    if returncode != 0 and not problems:
        tail = ANSI_ESCAPE.sub("", log.read_text(encoding="utf-8", errors="replace")).splitlines()[-LOG_TAIL_LINES:]
        problems = [f"jupyter-book build exited with {returncode} and reported no warning; the end of its log:", *tail]
    return problems


def write_site_files(built: list[Edition], config: dict[str, Any], toc: dict[str, Any], site: Path) -> None:
    """Write the preview image, ``sitemap.xml`` and ``robots.txt`` at the site's root.

    Raises:
        SitemapError: if an edition's sitemap is missing or wrong (``booktools.website.sitemap``).
    """
    base = site_url.base_url(config)
    write_preview_image(site / SITE_FILES.preview)
    write_sitemap(site, base, [edition.code for edition in built], f"{toc['root']}.html")
    write_robots(site, base)


def inputs_digest(project: Project) -> str:
    """Return a digest of every file a build reads (``Project.build_inputs``)."""
    digest = hashlib.sha256()
    for path in project.build_inputs():
        files = sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() else [path]
        for file in files:
            if "__pycache__" in file.parts or not file.exists():
                continue
            digest.update(project.relative(file).encode() + b"\0")
            digest.update(hashlib.sha256(file.read_bytes()).digest())
    return digest.hexdigest()


def is_current(project: Project) -> bool:
    """Whether ``_build/html`` was built, successfully, from the files as they are now."""
    stamp = stamp_path(project)
    return (
        (project.site_dir / SITE_FILES.landing).exists()
        and stamp.exists()
        and (stamp.read_text(encoding="utf-8").strip() == inputs_digest(project))
    )


def build(project: Project, pdf: bool = True) -> int:
    """Build every edition and the landing page, the PDFs if ``pdf``; return 0 on success, 1 on any problem."""
    config = load_yaml(project.config_file)
    digest = inputs_digest(project)
    try:
        built = editions_to_build(config, project)
        toc = edition_toc(project)
        for edition in built:  # every interface string of every edition, or no build
            load_strings(project, edition.code)
    except (BuildError, book_config.ConfigError) as error:
        print(f"make book: {error}", file=sys.stderr)
        return 1
    site = project.site_dir
    shutil.rmtree(site, ignore_errors=True)
    stamp_path(project).unlink(missing_ok=True)
    site.mkdir(parents=True)
    print(
        f"building {', '.join(edition.code for edition in built)} with jupyter-book build {' '.join(BUILD_FLAGS)}",
        flush=True,
    )
    # Sources are written one edition after another: the Markdown parser they use (markdown-it-py's
    # URL encoder, mdurl) fills a module-level cache without a lock, and a parse in a second thread
    # could read it half-filled (IndexError). Only the jupyter-book processes run side by side.
    prepared = [prepare_edition(edition, config, toc, built, project) for edition in built]
    with ThreadPoolExecutor(max_workers=min(len(built), os.cpu_count() or 1)) as pool:
        results = list(pool.map(run_edition, prepared))
    failed = False
    for result in results:
        code = result.edition.code
        log = project.relative(result.log)
        if result.returncode == 0 and not result.problems:
            shutil.copytree(result.log.parent / "_build" / "html", site / code)
            print(f"{code}: built, 0 warnings -> {project.relative(site / code)}/ (log: {log})")
            continue
        failed = True
        print(f"{code}: FAILED (exit {result.returncode}; log: {log})")
        for line in result.problems:
            print(f"  {line}")
    if failed:
        print("make book failed: warnings are errors (-W -n); see the lines above", file=sys.stderr)
        return 1
    decks = build_slides(site, project)
    if decks is None or (pdf and not build_pdfs(project)):
        return 1
    landing = write_landing(built, config, toc, site, decks, pdf_links(built, project))
    try:
        write_site_files(built, config, toc, site)
    except SitemapError as error:
        print(f"make book failed: {error}", file=sys.stderr)
        return 1
    stamp_path(project).write_text(digest + "\n" if pdf else "", encoding="utf-8")  # without PDFs: not current
    print(f"landing page: {project.relative(landing)}" + ("" if pdf else " (PDFs not printed, as asked)"))
    return 0


def build_pdfs(project: Project) -> bool:
    """Print the editions' PDFs into the site (``booktools.pdf``); False on failure.

    Without Chromium the PDFs are skipped, and said so, as the slides are without d2lbook;
    CI has it (``.ci/run``), and ``make pdf`` prints them once it is installed.
    """
    from booktools.pdf import build as pdf
    from booktools.pdf.printer import chromium

    if not chromium().exists():
        print(f"pdf: skipped, no browser at {chromium()} (apt-get install chromium, then make pdf)")
        return True
    return pdf.build(project) == 0


def build_slides(site: Path, project: Project) -> dict[str, str] | None:
    """Build the slides into the site; return the editions that have decks (code -> "Slides" in it), None on failure.

    Without d2lbook's environment (a scratch copy of the book) the slides are skipped,
    and said so; ``make book`` creates it first (``make slides-setup``).
    """
    from booktools.slides import decks as slides  # its tools live in .venv-d2lbook

    if not project.d2lbook_env.exists():
        print(f"slides: skipped, {project.relative(project.d2lbook_env)} is missing (make slides-setup creates it)")
        return {}
    try:
        written = slides.build(site, project)
    except slides.SlidesError as error:
        print(f"make book failed: slides: {error}", file=sys.stderr)
        return None
    print(f"slides: {len(written)} decks -> {project.relative(site)}/<lang>/{slides.SLIDES_DIR}/")
    return {code: load_strings(project, code).slides for code in sorted({path.parent.parent.name for path in written})}
