"""The language switcher: a menu in every page's header leading to the same page in the other editions.

Its template is ``templates/edition-switcher.html`` and its style ``static/edition-switcher.css``.
"""

from __future__ import annotations

import posixpath
from typing import Any

from sphinx.application import Sphinx
from sphinx.config import Config

from booktools.website.sphinx_settings import settings, settings_of

SWITCHER_TEMPLATE = "edition-switcher.html"


def edition_links(app: Sphinx, pagename: str) -> list[dict[str, Any]]:
    """Return the switcher's links for ``pagename``: one per edition, this one marked.

    Every edition is built into a sibling folder (``_build/html/<code>/``) from the
    same table of contents, so the same page of another edition is found at the
    same path under ``../<code>/``.
    """
    target = app.builder.get_target_uri(pagename)
    here = posixpath.dirname(pagename) or "."
    links = []
    book = settings(app)
    for edition in book.editions:
        links.append(
            {
                "code": edition.code,
                "name": edition.name,
                "url": posixpath.relpath(f"../{edition.code}/{target}", here),
                "current": edition.code == book.edition,
            }
        )
    return links


def add_switcher_to_header(app: Sphinx, config: Config) -> None:
    """Put the language switcher at the end of the article header, after the theme's buttons."""
    if not settings_of(config).editions:
        return
    options = config.html_theme_options
    items = options.get("article_header_end", "article-header-buttons.html")
    if isinstance(items, str):
        items = [item.strip() for item in items.split(",") if item.strip()]
    if SWITCHER_TEMPLATE not in items:
        options["article_header_end"] = [*items, SWITCHER_TEMPLATE]
    app.add_css_file("edition-switcher.css")


def add_switcher_links(app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: Any) -> None:
    """Give the switcher's template its links and its label."""
    if app.builder.format != "html" or not settings(app).editions:
        return
    links = edition_links(app, pagename)
    context["book_edition_links"] = links
    context["book_edition_label"] = " · ".join(link["name"] for link in links)


def setup_switcher(app: Sphinx) -> None:
    """Add the switcher to every page's header."""
    app.connect("config-inited", add_switcher_to_header)
    # Before pydata-sphinx-theme (priority 500) drops header templates that render empty.
    app.connect("html-page-context", add_switcher_links, priority=400)
