"""The stages of the build: what each reads, writes and needs, in one place.

=============  =========================================  ==================================  =============
stage          reads (besides its code and tools)         writes                              needs
=============  =========================================  ==================================  =============
``library``    the configuration, ``chapters/``           ``d2l_lib/<framework>.py``,         --
                                                          ``d2l_lib/figure_text.json``
``notebooks``  the same                                   ``notebooks/<lang>/<framework>/``   --
``site``       the configuration, bibliography,           ``_build/html/<lang>/`` but its     ``library``
               figures, ``d2l_lib/``, the edition's       ``slides/`` and ``pdf/``; its own
               folder ``chapters/<lang>/``                sitemap in its build folder
``slides``     the configuration, the edition's           ``_build/html/<lang>/slides/``:     --
               notebooks and ``strings.yml``              every deck and their index
``pdf``        the configuration, and what ``site``       ``_build/html/<lang>/pdf/``         ``site``
               made for the edition
``root``       the configuration, every ``strings.yml``,  ``_build/html/index.html``,         ``site``,
               what the stages it needs made (the         ``preview.png``, ``sitemap.xml``,   ``slides``,
               editions' sitemaps among it)               ``robots.txt``                      ``pdf``
``audit``      the configuration, what the stages it      ``_build/audit/html/table.md``;     ``site``,
               needs made (every edition's site, decks    not cached: it measures each time   ``slides``,
               and PDFs, the root files)                  it is asked                         ``pdf``,
                                                                                              ``root``
=============  =========================================  ==================================  =============

Each stage also reads its code: the modules it runs (``*_CODE`` below, with every module of
booktools they import) and the files beside them (``booktools.pipeline.tool_inputs``), the
file of the module that holds its ``run`` (``booktools.pipeline.stage_runs``, where what each
stage does is), and the versions of its tools: the Python distributions its code imports (and
``jupyter-book``, which the site stage runs), with every distribution they require, Node for
the sites' KaTeX and the audit's Lighthouse, ``.venv-d2lbook`` and MathJax for the slides,
Chromium for the PDFs and the audit. The library and the notebooks also run ``d2l_lib``'s
``__init__.py`` and ``figure_text.py`` (:func:`library_code`). ``tests/tooling/test_stage_reads.py``
runs the cheap stages and fails when one opens a file of the project that it does not declare.

``site``, ``slides`` and ``pdf`` run per edition (``booktools.pipeline.graph``): after a
change to one page of one edition, ``make book`` builds that edition's site, decks and
PDFs and the root files, and leaves the other editions' files as they are, unless the change
reaches the library (a ``#@save`` cell, a translated figure label), which every site reads; the library
and the notebooks, which read every page, are derived again (in seconds), and what reads
them runs only if they changed. Without d2lbook's environment the slides are skipped,
without Chromium the PDFs, each said once: the site is then not current
(:func:`is_current`), and they are made when the tool is there.

``make book`` is the ``root`` and ``notebooks`` stages with every stage they need (:data:`MAKE_BOOK`): it
writes the tracked derived files too (``d2l_lib/``, ``notebooks/``); ``make
audit`` adds the audit, which brings every stage it needs up to date and then measures, each
time it is asked: Lighthouse's scores depend on the machine's load, so a pass leaves no stamp
(``Stage.cached``). A stage that runs once for the whole book has the edition ``all``
(``booktools.pipeline.graph.ONCE``): its stamp is ``_build/stamps/root.all``.
"""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Callable
from pathlib import Path

from booktools.checks.audit.options import TABLE_FILE
from booktools.derive import library
from booktools.pipeline.graph import ONCE, Stage, make, stale_tasks
from booktools.pipeline.stage_runs import (
    build_sites,
    build_slides,
    print_pdfs,
    run_audit,
    write_library,
    write_notebooks,
    write_root,
)
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
from booktools.project import PDF_FOLDER, SITE_FILES, SLIDES_FOLDER, Project
from booktools.slides import mathjax
from booktools.slides.decks import all_decks
from booktools.sources.code_text import library_table_file
from booktools.sources.frameworks import FRAMEWORKS
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


def _configuration(project: Project) -> list[Path]:
    return [project.config_file, project.toc_file]


def library_code(project: Project) -> list[Path]:
    """The files of ``d2l_lib`` that the derivations run: ``booktools.sources.code_text`` imports
    ``d2l_lib.figure_text`` (with the package's ``__init__.py``, whose ``__version__`` every notebook's
    install cell states)."""
    return [project.library_dir / "__init__.py", project.library_dir / "figure_text.py"]


def _all_pages(*code: str) -> Callable[[Project, str], list[Path]]:
    """What a whole-book derivation reads: its code, the library's files it runs, the configuration and
    every edition's pages (and the book's data files beside them in ``chapters/``)."""
    return lambda project, edition: [
        *module_files(project, *code),
        *library_code(project),
        *_configuration(project),
        project.chapters,
    ]


def edition_inputs(project: Project, edition: str) -> list[Path]:
    """What one edition's site reads: its code, the configuration, bibliography, figures and library,
    and the edition's own folder (its pages, strings and alt text)."""
    shared = [project.bibliography, *project.shared_folders(), project.library_dir]
    return [*module_files(project, *SITE_CODE), *_configuration(project), *shared, project.edition_dir(edition)]


def slides_inputs(project: Project, edition: str) -> list[Path]:
    """What one edition's decks read: their code, the configuration, the edition's source pages (a deck per
    page and framework) and its strings (the decks' titles); not its alt text or index page, which no deck shows."""
    pages = project.source_pages(edition)
    return [*module_files(project, *SLIDES_CODE), *_configuration(project), *pages, project.strings_file(edition)]


def slides_writes(project: Project, edition: str) -> list[Path]:
    """An edition's decks, one per notebook page and framework, and their index."""
    folder = project.slides_dir(edition)
    return [folder / "index.html", *(folder / f"{deck.name}.html" for deck in all_decks(project, [edition]))]


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
    return [*module_files(project, *ROOT_CODE), *_configuration(project), *strings]


def _imported(*code: str, programs: tuple[str, ...] = ()) -> Callable[[Project], str]:
    """The environment of a stage: the distributions its code imports (and the ``programs`` it runs), with theirs."""
    return lambda project: distributions(third_party_imports(module_files(project, *code)), programs)


def _site_tools(project: Project) -> str:
    """The site's tools: what its code imports, jupyter-book (run as a program), the Sphinx extensions
    ``_config.yml`` loads by name (``sphinx.extra_extensions``) and Node (KaTeX)."""
    data = config_mapping(project)
    named = (data.get("sphinx") or {}).get("extra_extensions") or []
    modules = third_party_imports(module_files(project, *SITE_CODE)) | {str(name).split(".")[0] for name in named}
    return environment_digest(distributions(modules, ("jupyter-book",)), node_version())


def _slides_tools(project: Project) -> str:
    """The decks' tools: every distribution of ``.venv-d2lbook`` (d2lbook, nbconvert), and what the slides'
    code imports in the running environment (jinja2, nbformat) with MathJax (django-static-mathjax), which
    ``booktools.slides.mathjax`` finds by its package name rather than an import."""
    imported = third_party_imports(module_files(project, *SLIDES_CODE)) | {mathjax.PACKAGE}
    return environment_digest(python_environment(str(project.d2lbook_env)), distributions(imported))


def _browser(*code: str) -> Callable[[Project], str]:
    return lambda project: environment_digest(_imported(*code)(project), file_identity(chromium()), node_version())


def _reading_its_run(stage: Stage) -> Stage:
    """``stage`` with the file of the module that holds its ``run`` (``booktools.pipeline.stage_runs``) among
    what it reads: that file alone, not what it imports, which would be every stage's code."""
    reads = stage.reads
    module = stage.run.__module__
    return dataclasses.replace(
        stage, reads=lambda project, edition: [*reads(project, edition), module_file(project, module)]
    )


STAGES = tuple(
    _reading_its_run(stage)
    for stage in (
        Stage(
            "library",
            "the library, one module per framework, from the #@save cells of the source pages",
            reads=_all_pages(*LIBRARY_CODE),
            writes=lambda project, edition: [
                *(library.library_path(framework, project) for framework in FRAMEWORKS),
                library_table_file(project),
            ],
            run=write_library,
            per_edition=False,
            environment=_imported(*LIBRARY_CODE),
        ),
        Stage(
            "notebooks",
            "one runnable notebook per page, edition and framework",
            reads=_all_pages(*NOTEBOOKS_CODE),
            writes=lambda project, edition: [project.notebooks_dir],
            run=write_notebooks,
            per_edition=False,
            environment=_imported(*NOTEBOOKS_CODE),
        ),
        Stage(
            "site",
            "each edition's site, with Jupyter Book",
            reads=edition_inputs,
            writes=site_writes,
            run=build_sites,
            needs=("library",),
            made=site_made,
            environment=_site_tools,
        ),
        Stage(
            "slides",
            "each edition's lecture slides, with d2lbook and nbconvert",
            reads=slides_inputs,
            writes=slides_writes,
            run=build_slides,
            environment=_slides_tools,
        ),
        Stage(
            "pdf",
            "each edition's PDFs, one per framework, printed by Chromium from its site",
            reads=lambda project, edition: [*module_files(project, *PDF_CODE), *_configuration(project)],
            writes=lambda project, edition: [project.pdf_file(edition, framework.name) for framework in FRAMEWORKS],
            run=print_pdfs,
            needs=("site",),
            environment=_browser(*PDF_CODE),
        ),
        Stage(
            "root",
            "the landing page, preview image, sitemap and robots.txt at the site's root",
            reads=root_reads,
            writes=lambda project, edition: [project.site_dir / name for name in SITE_FILES],
            run=write_root,
            needs=("site", "slides", "pdf"),
            per_edition=False,
            environment=_imported(*ROOT_CODE),
        ),
        Stage(
            "audit",
            "Lighthouse on every page of the built site, mobile and desktop; fails under the bar",
            reads=lambda project, edition: [*module_files(project, *AUDIT_CODE), *_configuration(project)],
            writes=lambda project, edition: [project.work_dir("audit") / project.site_dir.name / TABLE_FILE],
            run=run_audit,
            needs=("site", "slides", "pdf", "root"),
            per_edition=False,
            environment=_browser(*AUDIT_CODE),
            cached=False,
        ),
    )
)
MAKE_BOOK = ("root", "notebooks")  # the stages make book brings up to date, with all they need


def stages_up_to(*names: str) -> list[Stage]:
    """The stages ``names`` and every stage they need, directly or not."""
    by_name = {stage.name: stage for stage in STAGES}
    wanted: set[str] = set()
    todo = list(names)
    while todo:
        current = todo.pop()
        if current not in wanted:
            wanted.add(current)
            todo += by_name[current].needs
    return [stage for stage in STAGES if stage.name in wanted]


def bring_up_to_date(project: Project, pdf: bool = True, targets: tuple[str, ...] = MAKE_BOOK) -> int:
    """Bring ``targets`` and the stages they need up to date (all of ``make book`` by default); 0 or 1.

    Without ``pdf`` the PDFs are not printed (the tests' builds): the site is then not current.
    """
    stages = stages_up_to(*targets)
    ok = make(project, stages, skip=frozenset() if pdf else frozenset({"pdf"}))
    if not ok:
        print("make book failed: see the lines above", file=sys.stderr)
    return 0 if ok else 1


def is_current(project: Project) -> bool:
    """Whether every stage of ``make book`` is up to date: the built site is what a build would make now."""
    return not stale_tasks(project, stages_up_to(*MAKE_BOOK))


__all__ = ["MAKE_BOOK", "STAGES", "ONCE", "bring_up_to_date", "is_current", "stages_up_to"]
