"""Sphinx extension that turns one Jupyter Book edition into a site of its language.

``booktools.website.jupyter_book`` loads it into every edition's build (``sphinx.local_extensions``
of the derived configuration) and passes it one Sphinx setting, ``book``: a mapping
that ``booktools.website.sphinx_settings.BookSettings`` types and validates (the edition,
every edition, the site's URL, the PDFs, the Live code kernel, the edition's strings and
the warning file), read through ``booktools.website.sphinx_settings.settings``.

It then

- adds a language switcher to the header of every page, leading to the same page
  in the other editions (``booktools.website.extension.switcher``);
- gives every page a description, absolute ``hreflang`` alternates and
  ``og:locale`` for search engines and link previews, and the pages without a
  doctree sphinxext-opengraph's tags (``booktools.website.extension.metadata``);
- puts the search box text in the edition's language (``booktools.website.extension.search_box``);
- typesets every formula at build time with KaTeX, run in Node: the pages hold HTML and
  MathML, and load no math script (``booktools.website.extension.katex_math``);
- drops sphinx-thebe's Thebe loader and settings, whose script points at a CDN: the
  book's own Live code button loads Thebe from the site (``booktools.website.extension.live``);
- registers a Korean search language (``booktools.website.extension.search``);
- shows each group of framework cells as synchronised tabs, and points the Colab
  button at the chosen framework's notebook (``booktools.website.extension.tabs``);
- links the book's PDFs, one per framework, from every page's download menu
  (``booktools.website.extension.pdf_links``);
- writes the build's warnings, and only those, to the settings' ``warning_file``
  (``booktools.website.extension.warning_file``), which ``booktools.website.jupyter_book`` reads;
- loads little before the first paint: scripts deferred, the search index only on the
  search page, a favicon, Korean broken between words (``booktools.website.extension.loading``);
- rewrites every written page in named steps once the build is done: icons as inline
  SVG, plain code tokens, image sizes, code blocks' tab stops and line counts, then
  one bundled stylesheet and cut icon fonts (``booktools.website.extension.page_steps``);
- documents ``d2l_lib`` on the API appendix page with autodoc, each object linked to the section
  that defines it (``booktools.website.extension.api_links``);
- fixes what axe-core finds in the pages (``booktools.website.extension.a11y``), among them
  two components of pydata-sphinx-theme overridden in ``templates/``
  (``search-button-field.html``, ``theme-switcher.html``; each says why).

Importing the package first checks the releases of the tools whose insides its modules
import (``booktools.upstream.guard.require_releases``): on another series it stops there, with
the tools, their releases and the places to check.

Its modules, one job each:

- ``api_links``: the API appendix documented by autodoc, each object linked to the section that defines it.
- ``theme_digest``: the theme's asset digest, read from the installed theme, given to the templates.
- ``switcher``: the language switcher in every page's header.
- ``search_box``: the search box's text in the edition's language.
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

from pathlib import Path
from typing import Any

from sphinx.application import Sphinx
from sphinx.config import Config

from booktools.upstream.guard import require_releases

# Before the modules below import the tools' insides: on a release of another series, the
# import stops here with the places to check (booktools.upstream), not inside one of them.
require_releases()

from booktools.website.extension.a11y import setup_a11y  # noqa: E402
from booktools.website.extension.api_links import setup_api_links  # noqa: E402
from booktools.website.extension.katex_math import setup_katex_math  # noqa: E402
from booktools.website.extension.live import setup_live  # noqa: E402
from booktools.website.extension.loading import setup_loading  # noqa: E402
from booktools.website.extension.metadata import setup_metadata  # noqa: E402
from booktools.website.extension.page_steps import setup_page_steps  # noqa: E402
from booktools.website.extension.pdf_links import setup_pdf_links  # noqa: E402
from booktools.website.extension.search import SearchKorean  # noqa: E402
from booktools.website.extension.search_box import setup_search_box  # noqa: E402
from booktools.website.extension.switcher import setup_switcher  # noqa: E402
from booktools.website.extension.tab_stops import setup_tab_stops  # noqa: E402
from booktools.website.extension.tabs import setup_tabs  # noqa: E402
from booktools.website.extension.theme_digest import setup_theme_digest  # noqa: E402
from booktools.website.extension.theme_words import setup_theme_words  # noqa: E402
from booktools.website.extension.warning_file import setup_warning_file  # noqa: E402
from booktools.website.sphinx_settings import register_settings  # noqa: E402

HERE = Path(__file__).resolve().parent


def add_theme_files(app: Sphinx, config: Config) -> None:
    """Serve ``static/``, and look templates up in ``templates/`` before the theme's own."""
    config.templates_path.insert(0, str(HERE / "templates"))
    config.html_static_path.append(str(HERE / "static"))


def setup(app: Sphinx) -> dict[str, Any]:
    """Register the settings, the Korean search language, and every module's events."""
    register_settings(app)
    setup_warning_file(app)
    app.add_search_language(SearchKorean)
    app.connect("config-inited", add_theme_files)
    setup_search_box(app)
    setup_switcher(app)
    setup_tabs(app)
    setup_a11y(app)
    setup_live(app)
    setup_metadata(app)
    setup_katex_math(app)
    setup_loading(app)
    setup_page_steps(app)
    setup_theme_digest(app)
    setup_tab_stops(app)
    setup_pdf_links(app)
    setup_theme_words(app)
    setup_api_links(app)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
