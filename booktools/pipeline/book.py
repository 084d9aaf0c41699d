"""The stages of the build: what each reads, writes and needs, in one place.

=============  ===========================================  =====================================  ==============
stage          reads                                        writes                                 needs
=============  ===========================================  =====================================  ==============
``library``    booktools, the configuration, ``chapters/``  ``d2l_lib/<framework>.py``             --
``notebooks``  the same                                     ``notebooks/<lang>/<framework>/``      --
``site``       ``edition_inputs(<lang>)``:                  ``_build/html/<lang>/`` (but its       ``library``
               the configuration, bibliography, figures,    ``slides/`` and ``pdf/``)
               library, booktools, ``chapters/``' shared
               files and ``chapters/<lang>/``
``slides``     the same                                     ``_build/html/<lang>/slides/``         --
``pdf``        booktools, the configuration, and ``site``'s ``_build/html/<lang>/pdf/``            ``site``
               stamp for the edition (the pages it prints)
``root``       booktools, the configuration, every          ``_build/html/index.html``,            ``site``,
               edition's ``strings.yml``, and every stamp   ``preview.png``, ``sitemap.xml``,      ``slides``,
               above                                        ``robots.txt``                         ``pdf``,
                                                                                                   ``notebooks``
``audit``      booktools, the configuration, ``root``'s     ``_build/audit/html/table.md``         ``root``
               stamp (the whole built site)
=============  ===========================================  =====================================  ==============

``make book`` is the ``root`` stage with every stage it needs (:data:`BOOK`); ``make audit``
adds the audit, which runs again only when the site has changed since it last passed.

``site``, ``slides`` and ``pdf`` run per edition (``booktools.pipeline.graph``): after a
change to one page of one edition, ``make book`` builds that edition's site, decks and
PDFs and the root files, and leaves the other editions' files as they are. Without
d2lbook's environment the slides are skipped, without Chromium the PDFs, each said
once: the site is then not current (:func:`is_current`), and they are made when the
tool is there.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from booktools.checks import audit
from booktools.checks.audit import TABLE_FILE
from booktools.configuration.schema import ConfigError, read_yaml
from booktools.derive import library, notebooks
from booktools.pdf import build as pdf
from booktools.pdf.printer import chromium
from booktools.pipeline.graph import WHOLE_BOOK, Outcome, Stage, make, stale_tasks
from booktools.project import PDF_FOLDER, SITE_FILES, SLIDES_FOLDER, Project
from booktools.slides import decks
from booktools.sources.frameworks import FRAMEWORKS
from booktools.sources.strings import load_strings
from booktools.website import build as site
from booktools.website import site_url
from booktools.website.editions import BuildError, edition_toc, editions_to_build
from booktools.website.landing import pdf_links, write_landing
from booktools.website.preview_image import write_preview_image
from booktools.website.sitemap import SitemapError, write_robots, write_sitemap


def config_mapping(project: Project) -> dict[str, Any]:
    """``_config.yml`` as the mapping Jupyter Book reads, validated first (``Project.config``).

    Raises:
        ConfigError: if the settings booktools reads are wrong, naming the file and the key.
    """
    project.config()
    data = read_yaml(project.config_file, project.relative(project.config_file))
    return data if isinstance(data, dict) else {}


def _all(outcome: Outcome, editions: list[str]) -> dict[str, Outcome]:
    return dict.fromkeys(editions, outcome)


def write_library(project: Project, editions: list[str]) -> dict[str, Outcome]:
    """The ``library`` stage: ``d2l_lib/<framework>.py`` from the ``#@save`` cells (``booktools.derive.library``)."""
    return _all(Outcome.DONE if library.run(project) == 0 else Outcome.FAILED, editions)


def write_notebooks(project: Project, editions: list[str]) -> dict[str, Outcome]:
    """The ``notebooks`` stage: ``notebooks/<lang>/<framework>/``, one per page (``booktools.derive.notebooks``)."""
    return _all(Outcome.DONE if notebooks.run(project) == 0 else Outcome.FAILED, editions)


def build_sites(project: Project, editions: list[str]) -> dict[str, Outcome]:
    """The ``site`` stage: build the editions' sites with Jupyter Book (``booktools.website.build``)."""
    try:
        config = config_mapping(project)
        built = editions_to_build(config, project)
        toc = edition_toc(project)
        for edition in built:  # every interface string of every edition, or no build
            load_strings(project, edition.code)
    except (BuildError, ConfigError) as error:
        print(f"make book: {error}", file=sys.stderr)
        return _all(Outcome.FAILED, editions)
    chosen = [edition for edition in built if edition.code in editions]
    results = site.build_editions(project, chosen, built, config, toc)
    return {code: Outcome.DONE if ok else Outcome.FAILED for code, ok in results.items()}


def build_slides(project: Project, editions: list[str]) -> dict[str, Outcome]:
    """The ``slides`` stage: the editions' decks (``booktools.slides.decks``, in d2lbook's environment)."""
    if not project.d2lbook_env.exists():
        print(f"slides: skipped, {project.relative(project.d2lbook_env)} is missing (make slides-setup creates it)")
        return _all(Outcome.SKIPPED, editions)
    try:
        written = decks.build(project.site_dir, project, editions)
    except decks.SlidesError as error:
        print(f"make book failed: slides: {error}", file=sys.stderr)
        return _all(Outcome.FAILED, editions)
    print(f"slides: {len(written)} decks of {', '.join(editions)} -> {project.relative(project.site_dir)}/<lang>/")
    return _all(Outcome.DONE, editions)


def print_pdfs(project: Project, editions: list[str]) -> dict[str, Outcome]:
    """The ``pdf`` stage: print the editions' PDFs from their built sites (``booktools.pdf``) with Chromium."""
    if not chromium().exists():
        print(f"pdf: skipped, no browser at {chromium()} (apt-get install chromium, then make pdf)")
        return _all(Outcome.SKIPPED, editions)
    return _all(Outcome.DONE if pdf.build(project, editions) == 0 else Outcome.FAILED, editions)


def write_root(project: Project, editions: list[str]) -> dict[str, Outcome]:
    """The ``root`` stage: the landing page, preview image, ``sitemap.xml`` and ``robots.txt``."""
    config = config_mapping(project)
    built = editions_to_build(config, project)
    toc = edition_toc(project)
    site_dir = project.site_dir
    slides = {e.code: load_strings(project, e.code).slides for e in built if project.slides_dir(e.code).is_dir()}
    landing = write_landing(built, config, toc, site_dir, slides, pdf_links(built, project))
    base = site_url.base_url(config)
    write_preview_image(site_dir / SITE_FILES.preview)
    try:
        sitemaps = {edition.code: _edition_sitemap(project, edition.code) for edition in built}
        write_sitemap(site_dir, base, sitemaps, f"{toc['root']}.html")
    except SitemapError as error:
        print(f"make book failed: {error}", file=sys.stderr)
        return _all(Outcome.FAILED, editions)
    write_robots(site_dir, base)
    print(f"landing page: {project.relative(landing)}")
    return _all(Outcome.DONE, editions)


def run_audit(project: Project, editions: list[str]) -> dict[str, Outcome]:
    """The ``audit`` stage: Lighthouse on every page, mobile and desktop, at the bar (``booktools.checks.audit``)."""
    return _all(
        Outcome.DONE if audit.run(project, argparse.Namespace(**audit.defaults())) == 0 else Outcome.FAILED, editions
    )


def edition_inputs(project: Project, edition: str) -> list[Path]:
    """What one edition's site and slides read: ``Project.build_inputs``, of ``chapters/`` only
    the files every edition shares and the edition's own folder."""
    shared = [path for path in project.build_inputs() if path != project.chapters]
    data = sorted(path for path in project.chapters.iterdir() if path.is_file())
    return [*shared, *data, project.edition_dir(edition)]


def _tools(project: Project) -> list[Path]:
    """What every stage reads: booktools and the configuration."""
    return [project.root / "booktools", project.config_file, project.toc_file]


def _edition_sitemap(project: Project, code: str) -> Path:
    """The sitemap of one edition's pages, as its build wrote it (merged into the site's)."""
    return site.built_html(project, code) / SITE_FILES.sitemap


def _root_reads(project: Project, edition: str) -> list[Path]:
    editions = project.editions()
    return [
        *_tools(project),
        *(project.strings_file(code) for code in editions),
        *(_edition_sitemap(project, code) for code in editions),
    ]


def _root_writes(project: Project, edition: str) -> list[Path]:
    return [project.site_dir / name for name in SITE_FILES]


def _sources(project: Project, edition: str) -> list[Path]:
    return [project.root / "booktools", project.config_file, project.toc_file, project.chapters]


STAGES = (
    Stage(
        "library",
        "the library, one module per framework, from the #@save cells of the source pages",
        reads=_sources,
        writes=lambda project, edition: [library.library_path(framework, project) for framework in FRAMEWORKS],
        run=write_library,
        per_edition=False,
    ),
    Stage(
        "notebooks",
        "one runnable notebook per page, edition and framework",
        reads=_sources,
        writes=lambda project, edition: [project.notebooks_dir],
        run=write_notebooks,
        per_edition=False,
    ),
    Stage(
        "site",
        "each edition's site, with Jupyter Book",
        reads=edition_inputs,
        writes=lambda project, edition: [
            project.edition_site_dir(edition) / f"{page}.html" for page in project.page_names(edition)
        ],
        run=build_sites,
        needs=("library",),
        made=lambda project, edition: [
            path for path in project.edition_site_dir(edition).iterdir() if path.name not in (SLIDES_FOLDER, PDF_FOLDER)
        ],
    ),
    Stage(
        "slides",
        "each edition's lecture slides, with d2lbook and nbconvert",
        reads=edition_inputs,
        writes=lambda project, edition: [project.slides_dir(edition) / "index.html"],
        run=build_slides,
    ),
    Stage(
        "pdf",
        "each edition's PDFs, one per framework, printed by Chromium from its site",
        reads=lambda project, edition: _tools(project),
        writes=lambda project, edition: [project.pdf_file(edition, framework.name) for framework in FRAMEWORKS],
        run=print_pdfs,
        needs=("site",),
    ),
    Stage(
        "root",
        "the landing page, preview image, sitemap and robots.txt at the site's root",
        reads=_root_reads,
        writes=_root_writes,
        run=write_root,
        needs=("site", "slides", "pdf", "notebooks"),
        per_edition=False,
    ),
    Stage(
        "audit",
        "Lighthouse on every page of the built site, mobile and desktop; fails under the bar",
        reads=lambda project, edition: _tools(project),
        writes=lambda project, edition: [project.work_dir("audit") / project.site_dir.name / TABLE_FILE],
        run=run_audit,
        needs=("root",),
        per_edition=False,
    ),
)
BOOK = "root"  # the stage make book brings up to date, with all it needs


def stages_up_to(name: str) -> list[Stage]:
    """The stage ``name`` and every stage it needs, directly or not."""
    by_name = {stage.name: stage for stage in STAGES}
    wanted, todo = set(), [name]
    while todo:
        current = todo.pop()
        if current not in wanted:
            wanted.add(current)
            todo += by_name[current].needs
    return [stage for stage in STAGES if stage.name in wanted]


def build(project: Project, pdf: bool = True, target: str = BOOK) -> int:
    """Bring ``target`` and the stages it needs up to date (all of ``make book`` by default); 0 or 1.

    Without ``pdf`` the PDFs are not printed (the tests' builds): the site is then not current.
    """
    stages = stages_up_to(target)
    ok = make(project, stages, skip=frozenset() if pdf else frozenset({"pdf"}))
    if not ok:
        print("make book failed: see the lines above", file=sys.stderr)
    return 0 if ok else 1


def is_current(project: Project) -> bool:
    """Whether every stage of ``make book`` is up to date: the built site is what a build would make now."""
    return not stale_tasks(project, stages_up_to(BOOK))


__all__ = ["BOOK", "STAGES", "WHOLE_BOOK", "build", "is_current", "stages_up_to"]
