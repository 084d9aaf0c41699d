"""What each stage of the build does when it runs, for the editions given (``booktools.pipeline.stages``
declares what each reads, writes and needs).

Each function returns, per edition, what became of it (``booktools.pipeline.graph.Outcome``).
A tool that is not installed (d2lbook's environment, Chromium) skips its stage and says so.
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
    """The ``library`` stage: ``d2l_lib/<framework>.py`` from the ``#@save`` cells (``booktools.derive.library``)."""
    return _all(Outcome.DONE if library.run(project) == 0 else Outcome.FAILED, editions)


def write_notebooks(project: Project, editions: list[str]) -> dict[str, Outcome]:
    """The ``notebooks`` stage: ``notebooks/<lang>/<framework>/``, one per page (``booktools.derive.notebooks``)."""
    return _all(Outcome.DONE if notebooks.run(project) == 0 else Outcome.FAILED, editions)


def build_sites(project: Project, editions: list[str]) -> dict[str, Outcome]:
    """The ``site`` stage: build the editions' sites with Jupyter Book (``booktools.website.jupyter_book``)."""
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
    """The ``slides`` stage: the editions' decks (``booktools.slides.decks``, in d2lbook's environment)."""
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
    """The ``pdf`` stage: print the editions' PDFs from their built sites (``booktools.pdf``) with Chromium."""
    if not chromium().exists():
        print(f"pdf: skipped, no browser at {chromium()} (apt-get install chromium, then make pdf)")
        return _all(Outcome.SKIPPED, editions)
    return _all(Outcome.DONE if print_editions(project, editions) == 0 else Outcome.FAILED, editions)


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
        sitemaps = {edition.code: jupyter_book.edition_sitemap(project, edition.code) for edition in built}
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
        Outcome.DONE
        if site_audit.run(project, argparse.Namespace(**audit_options.defaults())) == 0
        else Outcome.FAILED,
        editions,
    )
