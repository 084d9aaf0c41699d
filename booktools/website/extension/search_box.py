"""The search box's text in the edition's language.

Jupyter Book fixes it to the English "Search this book...", and sphinx-book-theme's
own catalog has no "Search" for Indonesian or Korean, so Sphinx's translation
stands in. A text ``_config.yml`` sets itself is kept.
"""

from __future__ import annotations

from typing import Any

from sphinx.application import Sphinx
from sphinx.config import Config
from sphinx.locale import _ as sphinx_translation
from sphinx.locale import get_translation

# Jupyter Book's default, in English whatever the language; see drop_fixed_search_text.
JUPYTER_BOOK_SEARCH_TEXT = "Search this book..."
BOOK_THEME_CATALOG = "booktheme"


def drop_fixed_search_text(app: Sphinx, config: Config) -> None:
    """Remove Jupyter Book's English search box text, so that the page gets a translated one."""
    options = config.html_theme_options
    if options.get("search_bar_text") == JUPYTER_BOOK_SEARCH_TEXT:
        del options["search_bar_text"]


def search_text() -> str:
    """Return "Search..." in the build's language: the book theme's word, else Sphinx's."""
    word = str(get_translation(BOOK_THEME_CATALOG)("Search"))
    if word == "Search":
        word = str(sphinx_translation("Search"))
    return f"{word}..."


def translate_search_box(app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: Any) -> None:
    """Set the search box text in the edition's language, unless ``_config.yml`` sets one."""
    if app.builder.format == "html" and "search_bar_text" not in app.config.html_theme_options:
        context["theme_search_bar_text"] = search_text()


def setup_search_box(app: Sphinx) -> None:
    """Translate the search box's text on every page."""
    app.connect("config-inited", drop_fixed_search_text)
    # After sphinx-book-theme (priority 500) has set its untranslated search text.
    app.connect("html-page-context", translate_search_box, priority=600)
