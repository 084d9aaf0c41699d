"""The stage table, :data:`STAGES`: each stage's name, reads, writes, needs, run and tools, assembled here.

The entries are put together from three modules: :mod:`booktools.pipeline.stage_io` lists each stage's
files and tools, :mod:`booktools.pipeline.stage_runs` does each stage's work, and
:mod:`booktools.pipeline.graph` decides which stages are stale and runs them. ``make docs`` renders the
table, and the trace of ``make book`` through it, into ``docs/architecture.md``.

Every stage reads the whole ``booktools/`` folder (``stage_io.code``) and runs with every distribution of
the running Python environment (``booktools.pipeline.tool_inputs``): an edit to any file of booktools, or
an upgrade of any package, reruns every stage. Besides, the sites and the audit run with Node (KaTeX,
Lighthouse), the PDFs and the audit with Chromium, the slides with ``.venv-d2lbook``; the library and the
notebooks also run ``d2l_lib``'s ``__init__.py`` and ``figure_text.py`` (``stage_io.library_code``).
``tests/tooling/test_stage_reads.py`` runs the cheap stages and fails when one opens a file of the
project that it does not declare.

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

import sys

from booktools.checks.audit import site_audit
from booktools.checks.audit.options import TABLE_FILE
from booktools.derive import library
from booktools.pipeline.graph import ONCE, Stage, make, stale_tasks
from booktools.pipeline.stage_io import (
    all_pages,
    browser,
    code_and_configuration,
    d2lbook,
    edition_inputs,
    node,
    root_reads,
    site_made,
    site_writes,
    slides_inputs,
    slides_writes,
    tools,
)
from booktools.pipeline.stage_runs import (
    build_sites,
    build_slides,
    print_pdfs,
    run_audit,
    write_library,
    write_notebooks,
    write_root,
)
from booktools.project import SITE_FILES, Project
from booktools.sources.code_text import library_table_file
from booktools.sources.frameworks import FRAMEWORKS

STAGES = (
    Stage(
        "library",
        "the library, one module per framework, from the #@save cells of the source pages",
        reads=all_pages,
        writes=lambda project, edition: [
            *(library.library_path(framework, project) for framework in FRAMEWORKS),
            library_table_file(project),
        ],
        run=write_library,
        per_edition=False,
        environment=tools(),
    ),
    Stage(
        "notebooks",
        "one runnable notebook per page, edition and framework",
        reads=all_pages,
        writes=lambda project, edition: [project.notebooks_dir],
        run=write_notebooks,
        per_edition=False,
        environment=tools(),
    ),
    Stage(
        "site",
        "each edition's site, with Jupyter Book",
        reads=edition_inputs,
        writes=site_writes,
        run=build_sites,
        needs=("library",),
        made=site_made,
        environment=tools(node),
    ),
    Stage(
        "slides",
        "each edition's lecture slides, with d2lbook and nbconvert",
        reads=slides_inputs,
        writes=slides_writes,
        run=build_slides,
        environment=tools(d2lbook),
    ),
    Stage(
        "pdf",
        "each edition's PDFs, one per framework, printed by Chromium from its site",
        reads=code_and_configuration,
        writes=lambda project, edition: [project.pdf_file(edition, framework.name) for framework in FRAMEWORKS],
        run=print_pdfs,
        needs=("site",),
        environment=tools(browser),
    ),
    Stage(
        "root",
        "the landing page, preview image, sitemap and robots.txt at the site's root",
        reads=root_reads,
        writes=lambda project, edition: [project.site_dir / name for name in SITE_FILES],
        run=write_root,
        needs=("site", "slides", "pdf"),
        per_edition=False,
        environment=tools(),
    ),
    Stage(
        "audit",
        "Lighthouse on the book's pages (not the decks), mobile and desktop; fails under the bar",
        reads=code_and_configuration,
        writes=lambda project, edition: [site_audit.report_folder(project, project.site_dir) / TABLE_FILE],
        run=run_audit,
        needs=("site", "slides", "pdf", "root"),
        per_edition=False,
        environment=tools(browser, node),
        cached=False,
    ),
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
