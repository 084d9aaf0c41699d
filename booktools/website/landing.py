"""The site's landing page, ``_build/html/index.html``: one link per language edition, its slides and PDFs.

Written from ``landing.html`` (Jinja2) after the editions are built. Its head
holds what the editions' pages hold (``booktools.website.extension.metadata``): a
description, a canonical link, hreflang alternates (the editions' root pages, and
itself as ``x-default``, ``booktools.website.site_url``) and Open Graph tags, every
URL absolute. It is in English (``<html lang="en">``) and loads nothing from
elsewhere, so that a downloaded copy of the site reads offline.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import jinja2

from booktools.configuration.config_file import Edition
from booktools.project import SITE_FILES, SOURCE_LANGUAGE, Project
from booktools.sources.frameworks import FRAMEWORKS
from booktools.sources.strings import load_strings
from booktools.website import site_url
from booktools.website.assets import FAVICON

LANDING_TEMPLATE = Path(__file__).resolve().parent / "landing.html"


def write_landing(
    built: list[Edition],
    config: dict[str, Any],
    toc: dict[str, Any],
    site: Path,
    decks: dict[str, str] | None = None,
    pdfs: dict[str, list[dict[str, str]]] | None = None,
) -> Path:
    """Write ``site/index.html``, linking the root page of every edition, its slides and its PDFs.

    ``decks`` maps an edition's code to "Slides" in its language; ``pdfs``, to its PDFs' links
    (:func:`pdf_links`).
    """
    root_page = f"{toc['root']}.html"
    base = site_url.base_url(config)
    english = next(edition for edition in built if edition.code == SOURCE_LANGUAGE)
    template = jinja2.Template(LANDING_TEMPLATE.read_text(encoding="utf-8"), autoescape=True)
    html = template.render(
        title=config.get("title", ""),
        editions=built,
        root_page=root_page,
        language=SOURCE_LANGUAGE,
        decks=decks or {},
        pdfs=pdfs or {},
        url=site_url.site_url(base, SITE_FILES.landing),
        image=site_url.site_url(base, SITE_FILES.preview),
        locale=english.locale,
        other_locales=[edition.locale for edition in built if edition is not english],
        alternates=site_url.alternates(base, [edition.code for edition in built], root_page, root_page),
        favicon=FAVICON.name,
        custom_tags=(config.get("sphinx", {}).get("config") or {}).get("ogp_custom_meta_tags", []),
    )
    landing = site / SITE_FILES.landing
    landing.write_text(html, encoding="utf-8")
    shutil.copy2(FAVICON, site / FAVICON.name)
    # GitHub Pages serves folders starting with "_" (Sphinx's _static) only without Jekyll.
    (site / ".nojekyll").write_text("", encoding="utf-8")
    return landing


def pdf_links(built: list[Edition], project: Project) -> dict[str, list[dict[str, str]]]:
    """Return, per edition, the links of the PDFs printed (``{"text", "href"}``, href from the site's root)."""
    links = {}
    for edition in built:
        text = load_strings(project, edition.code).pdf.link
        printed = [
            {
                "text": text.format(framework=framework.label),
                "href": f"{edition.code}/{project.pdf_href(framework.name)}",
            }
            for framework in FRAMEWORKS
            if project.pdf_file(edition.code, framework.name).exists()
        ]
        if printed:
            links[edition.code] = printed
    return links
