"""What each stage of the build reads, writes and runs with (the files and tools behind ``stages.STAGES``).

Each function here lists one side of a stage for a project and an edition (or the digest of a stage's
tools); ``booktools.pipeline.stages`` puts them together into the stage table. Every stage reads the
whole of ``booktools/`` (:func:`code`): an edit to any file of it reruns every stage, rather than
guessing which modules a stage runs. The project's files are declared as precisely as each stage
reads them, and ``tests/tooling/test_stage_reads.py`` fails when a stage opens a file of the project
its reads do not name.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from booktools.pipeline.tool_inputs import (
    environment_digest,
    file_identity,
    node_version,
    python_environment,
    running_environment,
)
from booktools.programs import chromium
from booktools.project import PDF_FOLDER, SLIDES_FOLDER, TOOLS, Project
from booktools.slides.decks import all_decks
from booktools.website import jupyter_book

Tool = Callable[[Project], str]  # one fact of a tool a stage runs with, for its digest


def code(project: Project) -> Path:
    """The code every stage runs: the whole ``booktools/`` folder (each file but ``__pycache__``'s)."""
    return project.root / TOOLS


def configuration_files(project: Project) -> list[Path]:
    return [project.config_file, project.toc_file]


def code_and_configuration(project: Project, edition: str) -> list[Path]:
    """What a stage reads that works on what other stages made (the PDFs, the audit): its code, the configuration."""
    return [code(project), *configuration_files(project)]


def library_code(project: Project) -> list[Path]:
    """The files of ``d2l_lib`` that the derivations run: ``booktools.sources.code_text`` imports
    ``d2l_lib.figure_text`` (with the package's ``__init__.py``, whose ``__version__`` every notebook's
    install cell states)."""
    return [project.library_dir / "__init__.py", project.library_dir / "figure_text.py"]


def all_pages(project: Project, edition: str) -> list[Path]:
    """What a whole-book derivation reads: its code, the library's files it runs, the configuration and
    every edition's pages (and the book's data files beside them in ``chapters/``)."""
    return [code(project), *library_code(project), *configuration_files(project), project.chapters]


def edition_inputs(project: Project, edition: str) -> list[Path]:
    """What one edition's site reads: its code, the configuration, bibliography, figures and library,
    and the edition's own folder (its pages, strings and alt text)."""
    shared = [project.bibliography, *project.shared_folders(), project.library_dir]
    return [code(project), *configuration_files(project), *shared, project.edition_dir(edition)]


def slides_inputs(project: Project, edition: str) -> list[Path]:
    """What one edition's decks read: their code, the configuration, the edition's source pages (a deck per
    page and framework) and its strings (the decks' titles); not its alt text or index page, which no deck shows."""
    pages = project.source_pages(edition)
    return [code(project), *configuration_files(project), *pages, project.strings_file(edition)]


def slides_writes(project: Project, edition: str) -> list[Path]:
    """An edition's decks, one per page with slide marks and framework, and their index; none without such a page
    (``booktools.slides.decks.build`` then writes no folder)."""
    folder = project.slides_dir(edition)
    deck_files = [folder / f"{deck.name}.html" for deck in all_decks(project, [edition])]
    return [folder / "index.html", *deck_files] if deck_files else []


def site_writes(project: Project, edition: str) -> list[Path]:
    """An edition's pages in the site, and its own sitemap, left in its build folder for ``root``."""
    pages = [project.edition_site_dir(edition) / f"{page}.html" for page in project.page_names(edition)]
    return [*pages, jupyter_book.edition_sitemap(project, edition)]


def site_made(project: Project, edition: str) -> list[Path]:
    """What the stages after ``site`` read of it: the edition's site but the slides and PDFs, and its sitemap."""
    folder = project.edition_site_dir(edition)
    kept = (
        [path for path in folder.iterdir() if path.name not in (SLIDES_FOLDER, PDF_FOLDER)] if folder.is_dir() else []
    )
    return [*kept, jupyter_book.edition_sitemap(project, edition)]


def root_reads(project: Project, edition: str) -> list[Path]:
    """The landing page's code, the configuration and every edition's strings (the editions' sitemaps come
    from ``site``, a need)."""
    strings = [project.strings_file(each) for each in project.editions()]
    return [code(project), *configuration_files(project), *strings]


def node(project: Project) -> str:
    """Node's version: it runs KaTeX for the sites and Lighthouse for the audit."""
    return node_version()


def browser(project: Project) -> str:
    """Chromium's identity: it prints the PDFs and is what the audit measures with."""
    return file_identity(chromium())


def d2lbook(project: Project) -> str:
    """Every distribution of ``.venv-d2lbook``, where d2lbook and nbconvert make the decks."""
    return python_environment(project.d2lbook_env)


def tools(*others: Tool) -> Tool:
    """A stage's environment: every distribution of the running Python environment, and the facts of the
    ``others`` it runs (:func:`node`, :func:`browser`, :func:`d2lbook`)."""
    return lambda project: environment_digest(running_environment(), *(tool(project) for tool in others))
