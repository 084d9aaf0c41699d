"""Build language editions of the book with Jupyter Book: the ``site`` stage of ``booktools.pipeline.stages``.

``_config.yml`` and ``_toc.yml`` are the only configuration. For each edition
listed under ``editions`` and present under ``chapters/<code>/``, a derived
configuration and table of contents go to ``_build/editions/<code>/``; they differ
from the top-level ones only in the language (``<html lang>``, the theme's strings,
the search index) and title, the table of contents' page paths, the Colab path
(``repository.path_to_book``), the language switcher's values and absolute paths.

Each edition is built from a renderable copy of ``chapters/<code>/``
(``booktools.website.edition_copy``: framework cells marked for the tabs) by ``jupyter-book
build`` from scratch, with warnings as errors, nitpicky references and
``--keep-going`` (a broken reference, a duplicate label or a missing citation fails
the build), without executing the notebooks: stored outputs are rendered as they are.
An edition is the unit of rebuilding (``booktools.pipeline`` runs this stage for the
editions whose inputs changed), not a page: the extension rewrites the written site after
Sphinx (``booktools.website.extension.page_steps``: pages, and one stylesheet and font subset
made from every page), so a Sphinx incremental build, which writes only the pages it thinks
changed, would leave the site-wide steps made from a mix; an edition builds in about 35 s.

Before any edition starts, the installed tools are checked against the releases the site's
couplings to their insides were written for (``booktools.upstream``): another series fails
every edition with the places to check, before Jupyter Book or the extension imports them.

A build's problems are what Sphinx and Jupyter Book report, never a line that
something else prints: the derived configuration is validated against Jupyter
Book's schema, and an edition fails when ``jupyter-book build`` exits non-zero or
Sphinx wrote a warning to ``_build/editions/<code>/warnings.txt``
(``booktools.website.extension.warning_file``); a warning about a page of the copy names the
page the author edits (``chapters/<code>/x.ipynb``, :func:`source_paths`). Notes that imported libraries print on
some CPUs (TensorFlow's ``absl::InitializeLog()``) stay in the log and fail nothing.
An edition that builds is copied to ``_build/html/<code>/``, in place of its last build
but for its slides and PDFs, which other stages write there (``booktools.pipeline.stages``
runs them, and writes the landing page and the site's root files after them).
"""

from __future__ import annotations

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

from booktools.configuration.config_file import Edition
from booktools.configuration.schema import ConfigError
from booktools.project import PDF_FOLDER, SITE_FILES, SLIDES_FOLDER, Project
from booktools.upstream.guard import installed_problems
from booktools.website.api_page import with_api_page
from booktools.website.edition_copy import SOURCE_ERRORS, write_edition_sources
from booktools.website.editions import BuildError, edition_config
from booktools.website.sphinx_settings import with_warning_file

BUILD_FLAGS = ("-W", "-n", "--keep-going", "--all")
ANSI_ESCAPE = re.compile(r"\x1b\[[0-9;]*m")
WARNING_FILE = "warnings.txt"
COPY_FOLDER = "src"  # the renderable copy of the sources, in an edition's build folder
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
    cwd: Path  # the book's root
    copy: Path  # the renderable copy of the sources (``_build/editions/<code>/src``)


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
    header = "# Derived by booktools.website.jupyter_book from the top-level file; do not edit.\n"
    config_file.write_text(header + yaml.safe_dump(derived, allow_unicode=True, sort_keys=False), encoding="utf-8")
    # The API appendix (booktools.website.api_page) is generated into each edition's copy, after the pages.
    toc_file.write_text(header + yaml.safe_dump(with_api_page(toc), sort_keys=False), encoding="utf-8")
    try:
        source = write_edition_sources(project.chapters / edition.code, work / COPY_FOLDER, project)
    except (*SOURCE_ERRORS, ConfigError) as error:
        log.write_text(f"ERROR: {error}\n", encoding="utf-8")
        return EditionResult(edition, 1, log, [f"ERROR: {error}"])
    command = [jupyter_book_command(), "build", str(source), "--path-output", str(work), "--config"]
    return EditionRun(
        edition,
        [*command, str(config_file), "--toc", str(toc_file), *BUILD_FLAGS],
        log,
        warnings,
        project.root,
        work / COPY_FOLDER,
    )


def run_edition(prepared: EditionRun | EditionResult) -> EditionResult:
    """Run a prepared edition's ``jupyter-book build`` (a failed preparation is returned as it is)."""
    if isinstance(prepared, EditionResult):
        return prepared
    with prepared.log.open("w", encoding="utf-8") as output:
        process = subprocess.run(prepared.command, cwd=prepared.cwd, stdout=output, stderr=subprocess.STDOUT)
    problems = source_paths(
        build_problems(process.returncode, prepared.warnings, prepared.log), prepared.copy, prepared.cwd
    )
    return EditionResult(prepared.edition, process.returncode, prepared.log, problems)


def build_problems(returncode: int, warnings: Path, log: Path) -> list[str]:
    """Return what Sphinx reported in ``warnings``; for a failed build without one, the end of ``log``."""
    reported = warnings.read_text(encoding="utf-8").splitlines() if warnings.exists() else []
    problems = [line for line in reported if line.strip()]
    if returncode != 0 and not problems:
        tail = ANSI_ESCAPE.sub("", log.read_text(encoding="utf-8", errors="replace")).splitlines()[-LOG_TAIL_LINES:]
        problems = [f"jupyter-book build exited with {returncode} and reported no warning; the end of its log:", *tail]
    return problems


def source_paths(lines: list[str], copy: Path, root: Path) -> list[str]:
    """``lines`` with each path into the renderable copy ``copy`` (absolute, or from ``root``) written as the
    source file it was made from, from ``root`` (``chapters/<code>/x.ipynb``); a file of the copy with no such
    source (the generated API page) keeps its copy's path."""
    prefixes = [f"{copy}{os.sep}"]  # the absolute path first: it holds the relative one
    if copy.is_relative_to(root):
        prefixes.append(f"{copy.relative_to(root).as_posix()}/")
    pattern = re.compile("(?:" + "|".join(re.escape(prefix) for prefix in prefixes) + r")([^\s:]+)")

    def source(match: re.Match[str]) -> str:
        return match[1] if (root / match[1]).is_file() else match[0]

    return [pattern.sub(source, line) for line in lines]


def built_html(project: Project, code: str) -> Path:
    """``_build/editions/<code>/_build/html/``: what the last ``jupyter-book build`` of an edition wrote."""
    return project.work_dir("editions") / code / "_build" / "html"


def edition_sitemap(project: Project, code: str) -> Path:
    """The sitemap of one edition's pages, as its build wrote it (merged into the site's by ``root``)."""
    return built_html(project, code) / SITE_FILES.sitemap


def install_edition(built: Path, target: Path) -> None:
    """Put an edition's built site at ``target`` (``_build/html/<code>/``), in place of its last build.

    The folders other stages write there, the slides and the PDFs, stay: they are rebuilt
    when what they read changes, not with every build of the site. The edition's own
    ``sitemap.xml`` stays in ``built``: the site has one, at its root (``booktools.website.sitemap``).
    """
    if target.exists():
        for child in target.iterdir():
            if child.name in (SLIDES_FOLDER, PDF_FOLDER):
                continue
            if child.is_dir() and not child.is_symlink():
                shutil.rmtree(child)
            else:
                child.unlink()
    edition_sitemap = shutil.ignore_patterns(SITE_FILES.sitemap)
    shutil.copytree(
        built,
        target,
        dirs_exist_ok=True,
        ignore=lambda folder, names: edition_sitemap(folder, names) if Path(folder) == built else set(),
    )


def build_editions(
    project: Project, chosen: list[Edition], built: list[Edition], config: dict[str, Any], toc: dict[str, Any]
) -> dict[str, bool]:
    """Build the editions ``chosen`` of those ``built`` (the language switcher lists these); True where it built.

    Each edition's problems are printed under its name; a successful one is installed in the site.
    A tool of another release series than the site's couplings were written for
    (``booktools.upstream``) fails them all before any ``jupyter-book build`` starts, naming its places.
    """
    changed = installed_problems()
    if changed:
        for line in changed:
            print(f"make book failed: {line}", file=sys.stderr)
        return {edition.code: False for edition in chosen}
    print(
        f"building {', '.join(edition.code for edition in chosen)} with jupyter-book build {' '.join(BUILD_FLAGS)}",
        flush=True,
    )
    # Sources are written one edition after another: the Markdown parser they use (markdown-it-py's
    # URL encoder, mdurl) fills a module-level cache without a lock, and a parse in a second thread
    # could read it half-filled (IndexError). Only the jupyter-book processes run side by side.
    prepared = [prepare_edition(edition, config, toc, built, project) for edition in chosen]
    with ThreadPoolExecutor(max_workers=max(1, min(len(chosen), os.cpu_count() or 1))) as pool:
        results = list(pool.map(run_edition, prepared))
    succeeded = {}
    for result in results:
        code = result.edition.code
        log = project.relative(result.log)
        succeeded[code] = result.returncode == 0 and not result.problems
        if succeeded[code]:
            target = project.edition_site_dir(code)
            install_edition(built_html(project, code), target)
            print(f"{code}: built, 0 warnings -> {project.relative(target)}/ (log: {log})")
            continue
        print(f"{code}: FAILED (exit {result.returncode}; log: {log})")
        for line in result.problems:
            print(f"  {line}")
    if not all(succeeded.values()):
        print("make book failed: warnings are errors (-W -n); see the lines above", file=sys.stderr)
    return succeeded
