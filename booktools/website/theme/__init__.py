"""Sphinx extension that turns one Jupyter Book edition into a site of its language.

``booktools.website.build`` loads it into every edition's build (``sphinx.local_extensions``
of the derived configuration) and passes it one Sphinx setting, ``book``: a mapping
that ``booktools.website.sphinx_settings.BookSettings`` types and validates (the edition,
every edition, the site's URL, the PDFs, the Live code kernel, the edition's strings and
the warning file), read through ``booktools.website.sphinx_settings.settings``.

It then

- adds a language switcher to the header of every page, leading to the same page
  in the other editions (``templates/edition-switcher.html``);
- gives every page a description, absolute ``hreflang`` alternates and
  ``og:locale`` for search engines and link previews, and the pages without a
  doctree sphinxext-opengraph's tags (``booktools.website.theme.metadata``);
- puts the search box text in the edition's language: Jupyter Book fixes it to
  the English "Search this book...", and sphinx-book-theme's own catalog has no
  "Search" for Indonesian or Korean, so Sphinx's translation stands in;
- typesets every formula at build time with KaTeX, run in Node: the pages hold HTML and
  MathML, and load no math script (``booktools.website.theme.katex_math``);
- drops sphinx-thebe's Thebe loader, whose script points at a CDN: the
  book's own Live code button loads Thebe from the site (``booktools.website.theme.live``);
- registers a Korean search language (``booktools.website.theme.search``);
- shows each group of framework cells as synchronised tabs, and points the Colab
  button at the chosen framework's notebook (``booktools.website.theme.tabs``);
- links the book's PDFs, one per framework, from every page's download menu
  (``booktools.website.theme.pdf_links``);
- writes the build's warnings, and only those, to the settings' ``warning_file``
  (``booktools.website.theme.warning_file``), which ``booktools.website.build`` reads;
- loads little before the first paint: scripts deferred, the search index only on the
  search page, a favicon, Korean broken between words (``booktools.website.theme.loading``);
- rewrites every written page in named steps once the build is done: icons as inline
  SVG, plain code tokens, image sizes, code blocks' tab stops and line counts, then
  one bundled stylesheet and cut icon fonts (``booktools.website.theme.page_steps``);
- fixes what axe-core finds in the pages (``booktools.website.theme.a11y``), among them
  two components of pydata-sphinx-theme overridden in ``templates/``
  (``search-button-field.html``, ``theme-switcher.html``; each says why).

Its modules, one job each:

- ``upstream``: the releases of the themes, Sphinx and sphinxcontrib-katex the overrides were written for, checked.
- ``tabs``: each group of framework cells as synchronised sphinx-design tabs, and the Colab button.
- ``live``: the Live code button, which runs a page's code cells on a Jupyter kernel.
- ``katex_math``: every formula typeset at build time with KaTeX.
- ``katex_server``: sphinxcontrib-katex's render server, started without its start-up race.
- ``katex_fonts``: which of KaTeX's fonts a page's formulas use.
- ``metadata``: what search engines and link previews read in a page's head.
- ``search``: a Korean search language for Sphinx's search.
- ``theme_words``: the themes' own words in the edition's language.
- ``pdf_links``: the PDFs, one per framework, in every page's download menu.
- ``warning_file``: every warning of a build written to a file of its own.
- ``loading``: what a page loads before its first paint, and what waits.
- ``a11y``: fixes for what axe-core finds in the pages.
- ``page_steps``: the rewriting of the written site, in ordered, named steps; the steps' modules follow.
- ``icons``: icons as inline SVG, without Font Awesome's JavaScript.
- ``icon_font``: Font Awesome's web fonts cut down to the glyphs the stylesheets name.
- ``font_subset``: a web font cut down to the characters a site draws with it.
- ``code_markup``: Pygments' spans dropped where a token looks like plain text.
- ``code_layout``: code blocks laid out when the reader comes near them, their height held until then.
- ``tab_stops``: keyboard access to scrollable code and outputs.
- ``image_sizes``: every image of a page with its size, so that nothing moves when it arrives.
- ``stylesheets``: one small stylesheet per page, without the rules no page can use.
"""

from __future__ import annotations

import posixpath
from pathlib import Path
from typing import Any

from sphinx.application import Sphinx
from sphinx.config import Config
from sphinx.locale import _ as sphinx_translation
from sphinx.locale import get_translation

from booktools.website.sphinx_settings import register_settings, settings, settings_of
from booktools.website.theme.a11y import setup_a11y
from booktools.website.theme.katex_math import setup_katex_math
from booktools.website.theme.live import setup_live
from booktools.website.theme.loading import setup_loading
from booktools.website.theme.metadata import setup_metadata
from booktools.website.theme.page_steps import setup_page_steps
from booktools.website.theme.pdf_links import setup_pdf_links
from booktools.website.theme.search import SearchKorean
from booktools.website.theme.tab_stops import setup_tab_stops
from booktools.website.theme.tabs import setup_tabs
from booktools.website.theme.theme_words import setup as setup_theme_words
from booktools.website.theme.upstream import setup_upstream
from booktools.website.theme.warning_file import setup_warning_file

HERE = Path(__file__).resolve().parent
SWITCHER_TEMPLATE = "edition-switcher.html"
# Jupyter Book's default, in English whatever the language; see drop_fixed_search_text.
JUPYTER_BOOK_SEARCH_TEXT = "Search this book..."
THEBE_ASSETS = ("sphinx-thebe.js", "sphinx-thebe.css")
BOOK_THEME_CATALOG = "booktheme"


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


def add_theme_files(app: Sphinx, config: Config) -> None:
    """Serve ``static/``, and look templates up in ``templates/`` before the theme's own."""
    config.templates_path.insert(0, str(HERE / "templates"))
    config.html_static_path.append(str(HERE / "static"))


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


def _is_thebe_asset(asset: Any) -> bool:
    filename = str(getattr(asset, "filename", asset) or "")
    body = str(getattr(asset, "attributes", {}).get("body", ""))
    return filename.endswith(THEBE_ASSETS) or "THEBE_JS_URL" in body


def translate_search_box(app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: Any) -> None:
    """Set the search box text in the edition's language, unless ``_config.yml`` sets one."""
    if app.builder.format == "html" and "search_bar_text" not in app.config.html_theme_options:
        context["theme_search_bar_text"] = search_text()


def update_page_context(app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: Any) -> None:
    """Give the templates the switcher links; drop the unused Thebe assets."""
    if app.builder.format != "html":
        return
    for key in ("script_files", "css_files"):
        # In place: later handlers add to this very list.
        if isinstance(context.get(key), list):
            context[key][:] = [asset for asset in context[key] if not _is_thebe_asset(asset)]
    if not settings(app).editions:
        return
    links = edition_links(app, pagename)
    context["book_edition_links"] = links
    context["book_edition_label"] = " · ".join(link["name"] for link in links)


def setup(app: Sphinx) -> dict[str, Any]:
    """Register the settings, events and the Korean search language."""
    register_settings(app)
    setup_warning_file(app)
    app.add_search_language(SearchKorean)
    app.connect("config-inited", drop_fixed_search_text)
    app.connect("config-inited", add_theme_files)
    app.connect("config-inited", add_switcher_to_header)
    # Before pydata-sphinx-theme (priority 500) drops header templates that render empty.
    app.connect("html-page-context", update_page_context, priority=400)
    # After sphinx-book-theme (priority 500) has set its untranslated search text.
    app.connect("html-page-context", translate_search_box, priority=600)
    setup_tabs(app)
    setup_a11y(app)
    setup_live(app)
    setup_metadata(app)
    setup_katex_math(app)
    setup_loading(app)
    setup_page_steps(app)
    setup_upstream(app)
    setup_tab_stops(app)
    setup_pdf_links(app)
    setup_theme_words(app)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
