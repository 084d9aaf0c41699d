"""What each stage of the build reads, writes and runs with (the files and tools behind ``stages.STAGES``).

Each function here lists one side of a stage for a project and an edition (or the digest of a stage's
tools); ``booktools.pipeline.stages`` puts them together into the stage table, and
``tests/tooling/test_stage_reads.py`` fails when a stage opens a file of the project its reads do not name.
"""

from __future__ import annotations

import ast
import dataclasses
from collections.abc import Callable
from pathlib import Path

from booktools.pipeline.graph import Stage
from booktools.pipeline.tool_inputs import (
    distributions,
    environment_digest,
    file_identity,
    module_file,
    module_files,
    node_version,
    python_environment,
    third_party_imports,
)
from booktools.programs import chromium
from booktools.project import PDF_FOLDER, SLIDES_FOLDER, Project
from booktools.slides import mathjax
from booktools.slides.decks import all_decks
from booktools.website import jupyter_book
from booktools.website.editions import config_mapping

# The modules each stage runs (with all they import); booktools.pipeline.tool_inputs reads the rest.
LIBRARY_CODE = ("booktools.derive.library",)
NOTEBOOKS_CODE = ("booktools.derive.notebooks",)
# The build of an edition, and the Sphinx extensions its configuration loads by name.
SITE_CODE = ("booktools.website.jupyter_book", "booktools.website.extension")
SLIDES_CODE = ("booktools.slides.decks", "booktools.slides.d2lbook_run")
PDF_CODE = ("booktools.pdf.edition_pdfs",)
ROOT_CODE = ("booktools.website.landing", "booktools.website.sitemap", "booktools.website.preview_image")
AUDIT_CODE = ("booktools.checks.audit",)


def configuration_files(project: Project) -> list[Path]:
    return [project.config_file, project.toc_file]


def library_code(project: Project) -> list[Path]:
    """The files of ``d2l_lib`` that the derivations run: ``booktools.sources.code_text`` imports
    ``d2l_lib.figure_text`` (with the package's ``__init__.py``, whose ``__version__`` every notebook's
    install cell states)."""
    return [project.library_dir / "__init__.py", project.library_dir / "figure_text.py"]


def all_pages(*code: str) -> Callable[[Project, str], list[Path]]:
    """What a whole-book derivation reads: its code, the library's files it runs, the configuration and
    every edition's pages (and the book's data files beside them in ``chapters/``)."""
    return lambda project, edition: [
        *module_files(project, *code),
        *library_code(project),
        *configuration_files(project),
        project.chapters,
    ]


def edition_inputs(project: Project, edition: str) -> list[Path]:
    """What one edition's site reads: its code, the configuration, bibliography, figures and library,
    and the edition's own folder (its pages, strings and alt text)."""
    shared = [project.bibliography, *project.shared_folders(), project.library_dir]
    return [*module_files(project, *SITE_CODE), *configuration_files(project), *shared, project.edition_dir(edition)]


def slides_inputs(project: Project, edition: str) -> list[Path]:
    """What one edition's decks read: their code, the configuration, the edition's source pages (a deck per
    page and framework) and its strings (the decks' titles); not its alt text or index page, which no deck shows."""
    pages = project.source_pages(edition)
    return [*module_files(project, *SLIDES_CODE), *configuration_files(project), *pages, project.strings_file(edition)]


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
    strings = [project.strings_file(code) for code in project.editions()]
    return [*module_files(project, *ROOT_CODE), *configuration_files(project), *strings]


def imported(*code: str, programs: tuple[str, ...] = ()) -> Callable[[Project], str]:
    """The environment of a stage: the distributions its code imports (and the ``programs`` it runs), with theirs."""
    return lambda project: distributions(third_party_imports(module_files(project, *code)), programs)


def site_tools(project: Project) -> str:
    """The site's tools: what its code imports, jupyter-book (run as a program), the Sphinx extensions
    ``_config.yml`` loads by name (``sphinx.extra_extensions``) and Node (KaTeX)."""
    data = config_mapping(project)
    named = (data.get("sphinx") or {}).get("extra_extensions") or []
    modules = third_party_imports(module_files(project, *SITE_CODE)) | {str(name).split(".")[0] for name in named}
    return environment_digest(distributions(modules, ("jupyter-book",)), node_version())


def slides_tools(project: Project) -> str:
    """The decks' tools: every distribution of ``.venv-d2lbook`` (d2lbook, nbconvert), and what the slides'
    code imports in the running environment (jinja2, nbformat) with MathJax (django-static-mathjax), which
    ``booktools.slides.mathjax`` finds by its package name rather than an import."""
    imported = third_party_imports(module_files(project, *SLIDES_CODE)) | {mathjax.PACKAGE}
    return environment_digest(python_environment(str(project.d2lbook_env)), distributions(imported))


def browser(*code: str) -> Callable[[Project], str]:
    return lambda project: environment_digest(imported(*code)(project), file_identity(chromium()), node_version())


def run_source(project: Project, stage: Stage) -> str:
    """The source of ``stage``'s run function as the project's copy of its module has it, with the module's
    functions it calls: a stage runs again when its own run changes, not when another stage's does."""
    path = module_file(project, stage.run.__module__)
    text = path.read_text(encoding="utf-8")
    functions = {node.name: node for node in ast.parse(text).body if isinstance(node, ast.FunctionDef)}
    wanted, todo = [], [stage.run.__name__]
    while todo:
        name = todo.pop()
        if name in functions and name not in wanted:
            wanted.append(name)
            todo += [node.id for node in ast.walk(functions[name]) if isinstance(node, ast.Name)]
    return "\n".join(ast.get_source_segment(text, functions[name]) or "" for name in sorted(wanted))


def running_its_run(stage: Stage) -> Stage:
    """``stage`` with the source of its run function (:func:`run_source`, in ``booktools.pipeline.stage_runs``)
    among its environment's facts."""
    environment = stage.environment
    return dataclasses.replace(
        stage, environment=lambda project: environment_digest(environment(project), run_source(project, stage))
    )
