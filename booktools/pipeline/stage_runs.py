"""What each stage of the build does when it runs, for the editions given (``booktools.pipeline.stages``
declares what each reads, writes and needs).

Each function's docstring says what it calls and what that writes: ``make docs`` renders them, in the order
the stages run, as the trace of ``make book`` in ``docs/architecture.md``. Each function returns, per edition,
what became of it (``booktools.pipeline.graph.Outcome``). A tool that is not installed (d2lbook's environment,
Chromium) skips its stage and says so.
"""

from __future__ import annotations

import argparse
import sys

from booktools.checks.audit import options as audit_options
from booktools.checks.audit import site_audit
from booktools.configuration.schema import ConfigError
from booktools.derive import library, notebooks
from booktools.pdf.edition_pdfs import print_editions
from booktools.pipeline.graph import Outcome
from booktools.programs import chromium
from booktools.project import SITE_FILES, Project
from booktools.slides import decks
from booktools.slides.errors import SlidesError
from booktools.sources.strings import load_strings
from booktools.website import jupyter_book, site_url
from booktools.website.editions import BuildError, config_mapping, edition_toc, editions_to_build
from booktools.website.landing import pdf_links, write_landing
from booktools.website.preview_image import write_preview_image
from booktools.website.sitemap import SitemapError, write_robots, write_sitemap


def _all(outcome: Outcome, editions: list[str]) -> dict[str, Outcome]:
    return dict.fromkeys(editions, outcome)


def write_library(project: Project, editions: list[str]) -> dict[str, Outcome]:
    """``booktools.derive.library.run``: ``d2l_lib/<framework>.py`` from the English pages' ``#@save`` cells, and
    ``d2l_lib/figure_text.json`` from every edition's translated figure labels (tracked files)."""
    return _all(Outcome.DONE if library.run(project) == 0 else Outcome.FAILED, editions)


def write_notebooks(project: Project, editions: list[str]) -> dict[str, Outcome]:
    """``booktools.derive.notebooks.run``: ``notebooks/<lang>/<framework>/<page>.ipynb`` (tracked files)."""
    return _all(Outcome.DONE if notebooks.run(project) == 0 else Outcome.FAILED, editions)


def build_sites(project: Project, editions: list[str]) -> dict[str, Outcome]:
    """``booktools.website.jupyter_book.build_editions``, after every edition's configuration and strings load:
    ``prepare_edition`` writes an edition's configuration, TOC and renderable pages into ``_build/editions/<lang>/``
    (``booktools.website.editions``, ``booktools.website.edition_copy``); ``run_edition`` runs ``jupyter-book build``
    there with the Sphinx extension ``booktools.website.extension``, whose page steps rewrite the written pages at
    ``build-finished``; ``install_edition`` copies the result to ``_build/html/<lang>/<page>.html``."""
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
    results = jupyter_book.build_editions(project, chosen, built, config, toc)
    return {code: Outcome.DONE if ok else Outcome.FAILED for code, ok in results.items()}


def build_slides(project: Project, editions: list[str]) -> dict[str, Outcome]:
    """``booktools.slides.decks.build``: d2lbook in ``.venv-d2lbook`` cuts each page into slides, nbconvert renders
    each deck into ``_build/html/<lang>/slides/``; skipped without ``.venv-d2lbook``."""
    if not project.d2lbook_env.exists():
        print(f"slides: skipped, {project.relative(project.d2lbook_env)} is missing (make slides-setup creates it)")
        return _all(Outcome.SKIPPED, editions)
    try:
        written = decks.build(project.site_dir, project, editions)
    except SlidesError as error:
        print(f"make book failed: slides: {error}", file=sys.stderr)
        return _all(Outcome.FAILED, editions)
    print(f"slides: {len(written)} decks of {', '.join(editions)} -> {project.relative(project.site_dir)}/<lang>/")
    return _all(Outcome.DONE, editions)


def print_pdfs(project: Project, editions: list[str]) -> dict[str, Outcome]:
    """``booktools.pdf.edition_pdfs.print_editions``: Chromium prints each edition's built site, one PDF per
    framework, into ``_build/html/<lang>/pdf/``; skipped without Chromium."""
    if not chromium().exists():
        print(f"pdf: skipped, no browser at {chromium()} (apt-get install chromium, then make pdf)")
        return _all(Outcome.SKIPPED, editions)
    return _all(Outcome.DONE if print_editions(project, editions) == 0 else Outcome.FAILED, editions)


def write_root(project: Project, editions: list[str]) -> dict[str, Outcome]:
    """``booktools.website.landing.write_landing``, ``booktools.website.preview_image.write_preview_image`` and
    ``booktools.website.sitemap``: the landing page, preview image, ``sitemap.xml`` (from each edition's own) and
    ``robots.txt`` at ``_build/html/``."""
    config = config_mapping(project)
    built = editions_to_build(config, project)
    toc = edition_toc(project)
    site_dir = project.site_dir
    slides = {e.code: load_strings(project, e.code).slides for e in built if project.slides_dir(e.code).is_dir()}
    landing = write_landing(built, config, toc, site_dir, slides, pdf_links(built, project))
    base = site_url.base_url(config)
    write_preview_image(site_dir / SITE_FILES.preview)
    try:
        sitemaps = {edition.code: jupyter_book.edition_sitemap(project, edition.code) for edition in built}
        write_sitemap(site_dir, base, sitemaps, f"{toc['root']}.html")
    except SitemapError as error:
        print(f"make book failed: {error}", file=sys.stderr)
        return _all(Outcome.FAILED, editions)
    write_robots(site_dir, base)
    print(f"landing page: {project.relative(landing)}")
    return _all(Outcome.DONE, editions)


def run_audit(project: Project, editions: list[str]) -> dict[str, Outcome]:
    """``booktools.checks.audit.site_audit.run``: Lighthouse on the book's pages (``site_pages``), mobile and desktop,
    failing under the Lighthouse bar (*Quality bars* in ``docs/architecture.md``)."""
    return _all(
        Outcome.DONE
        if site_audit.run(project, argparse.Namespace(**audit_options.defaults())) == 0
        else Outcome.FAILED,
        editions,
    )
