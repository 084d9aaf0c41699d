"""The releases of the tools whose insides the site depends on, checked before every build.

The site (``booktools/website/``) overrides templates of two themes and reaches into
Sphinx, docutils and Sphinx extensions where they offer no hook (each place below). Such
a coupling holds for the series it was written against (``0.17`` of ``0.17.1``): on
another series the build stops at its start (``config-inited``) and names the tool, the
two releases and the places to check; a patch release of the same series builds. (The
tests' one coupling outside the site, nbval's comparison, has the same kind of guard in
``booktools.checks.nbval_plugin``.) ``requirements.txt`` pins the exact releases the
outputs were made with (``tests/tooling/test_upstream.py`` holds them to the series here);
an upgrade to a new series is: check the places, then change the release here and the pin
there together.

What counts as a coupling, and so must be a place of its tool (a module or a template
of ``booktools/website/``, as a path under it):

- an import from a tool of the Sphinx ecosystem (Sphinx, docutils, and any distribution
  that requires one of them: themes, Sphinx extensions, Jupyter Book), except the
  documented extension API in :data:`PUBLIC_API` (``sphinx.application.Sphinx``,
  ``SphinxTransform``, ``docutils.nodes``, ...): a private module, a helper function, an
  internal class or module state;
- a name or module that starts with ``_`` (``_assets``), of any third-party package;
- a module imported by its name as a string (``importlib.import_module``);
- an override of another's registration (``app.add_node(..., override=True)``);
- a template of ``extension/templates/`` that has the name of a theme's own template: an
  override of that theme's template (a theme's nearest, ``sphinx-book-theme`` before
  ``pydata-sphinx-theme`` before Sphinx's ``basic``); a template no theme has is the
  book's own;
- and, listed by hand because no parser sees them: a tool's file, asset or CSS class
  the code names in a string (Font Awesome's ``fontawesome.js``, sphinx-thebe's asset
  names, sphinx-design's ``sd-tab-*`` classes, the theme's stylesheets).

``tests/tooling/test_upstream.py`` finds the first five kinds in every module and
template and fails naming any the places do not list, and any place that no longer exists.

The theme's asset digest that ``templates/static/webpack-macros.html`` appends to its
files' URLs is read from the installed theme's own template (:func:`theme_asset_digest`),
not copied.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, version
from importlib.util import find_spec
from pathlib import Path

from sphinx.application import Sphinx
from sphinx.config import Config
from sphinx.errors import ExtensionError


@dataclass(frozen=True)
class Place:
    """Where the site depends on a tool's insides: a file under ``booktools/website/``, and on what."""

    path: str  # "extension/a11y.py"
    what: str  # "myst_nb.sphinx_.HideCodeCellNode, imported by name"


@dataclass(frozen=True)
class Upstream:
    """A tool, the release the couplings to it were written for, its import names, and where they are."""

    distribution: str  # as requirements.txt spells it
    release: str
    modules: tuple[str, ...]  # the names the tool is imported by ("sphinxcontrib.katex")
    places: tuple[Place, ...]

    def place_list(self) -> str:
        """The places, for a message: ``extension/a11y.py (what), ...``."""
        return ", ".join(f"{place.path} ({place.what})" for place in self.places)


UPSTREAM = (
    Upstream(
        "pydata-sphinx-theme",
        "0.17.1",
        ("pydata_sphinx_theme",),
        (
            Place("extension/templates/layout.html", "tab stops, colour mode"),
            Place(
                "extension/templates/static/webpack-macros.html", "overrides its template; digest read by upstream.py"
            ),
            Place("extension/templates/search.html", "overrides its template"),
            Place("extension/templates/search-button-field.html", "overrides its component"),
            Place("extension/templates/theme-switcher.html", "overrides its component"),
            Place("extension/icons.py", "its fontawesome.js"),
            Place("extension/icon_font.py", "its Font Awesome web fonts"),
            Place("extension/pdf_links.py", "pydata_sphinx_theme.utils.get_theme_options_dict"),
            Place("extension/a11y.py", "its focus ring, its markup"),
            Place("extension/stylesheets.py", "its stylesheets"),
            Place("extension/tab_stops.py", "its tab stops on scrolling blocks"),
            Place("built_pages.py", "its article markup (article.bd-article), which the PDFs and word counts read"),
        ),
    ),
    Upstream(
        "sphinx-book-theme",
        "1.3.0",
        ("sphinx_book_theme",),
        (
            Place("extension/templates/layout.html", "overrides its template"),
            Place("extension/templates/author.html", "overrides its component"),
            Place("extension/templates/sbt-sidebar-nav.html", "overrides its component"),
            Place("extension/templates/toggle-primary-sidebar.html", "overrides its component"),
            Place("extension/templates/toggle-secondary-sidebar.html", "overrides its component"),
            Place("extension/search_box.py", "its catalog booktheme, its search text"),
            Place("extension/theme_words.py", "its catalog"),
        ),
    ),
    Upstream(
        "Sphinx",
        "7.4.7",
        ("sphinx",),
        (
            Place("extension/theme_words.py", "sphinx.locale.translators"),
            Place("extension/katex_math.py", "HTML5Translator, sphinx.util.math.get_node_equation_number"),
            Place("extension/loading.py", "the assets' class, the basic theme's documentation_options.js.jinja"),
            Place(
                "extension/warning_file.py",
                "sphinx.util.logging NAMESPACE and WarningStreamHandler, sphinx.util.console.strip_escape_sequences",
            ),
            Place("extension/search.py", "sphinx.search.en.SearchEnglish"),
        ),
    ),
    Upstream(
        "sphinxcontrib-katex",
        "0.9.11",
        ("sphinxcontrib.katex",),
        (
            Place("extension/katex_server.py", "KaTeXServer"),
            Place("extension/katex_math.py", "render_latex, KaTeXError"),
        ),
    ),
    Upstream(
        "myst-nb",
        "1.4.0",
        ("myst_nb",),
        (
            Place(
                "extension/a11y.py", "myst_nb.sphinx_.HideCodeCellNode, imported by name, its HTML visitors overridden"
            ),
        ),
    ),
    Upstream(
        "sphinx_design",
        "0.8.0",
        ("sphinx_design",),
        (
            Place("extension/tabs.py", "sphinx_design.shared.create_component, its tab set's nodes and classes"),
            Place("built_pages.py", "its tab set's HTML: sd-tab-content, data-sync-id"),
        ),
    ),
    Upstream(
        "sphinx-thebe",
        "0.3.1",
        ("sphinx_thebe",),
        (Place("extension/live.py", "its asset names sphinx-thebe.js and .css, the markers of its page settings"),),
    ),
    Upstream(
        "docutils",
        "0.21.2",
        ("docutils",),
        (Place("extension/a11y.py", "the HTML visitors of nodes.citation overridden"),),
    ),
    Upstream(
        "sphinxext-opengraph",
        "0.13.0",
        ("sphinxext.opengraph",),
        (Place("extension/metadata.py", "sphinxext.opengraph.get_tags"),),
    ),
    Upstream(
        "sphinx_external_toc",
        "1.1.0",
        ("sphinx_external_toc",),
        (Place("editions.py", "sphinx_external_toc.api's classes, sphinx_external_toc.parsing.create_toc_dict"),),
    ),
    Upstream(
        "jupyter-book",
        "1.0.4.post1",
        ("jupyter_book",),
        (Place("jupyter_book.py", "jupyter_book.config.validate_yaml"),),
    ),
    # Extensions the configuration loads by name, whose output or files the site's code names in strings:
    Upstream(
        "sphinx-copybutton",
        "0.5.2",
        ("sphinx_copybutton",),
        (Place("extension/loading.py", "its scripts' file names, loaded on demand"),),
    ),
    Upstream(
        "sphinx-togglebutton",
        "0.4.5",
        ("sphinx_togglebutton",),
        (Place("extension/static/book.css", "its folded solutions' classes, open without JavaScript"),),
    ),
    Upstream(
        "sphinx-exercise",
        "1.2.1",
        ("sphinx_exercise",),
        (Place("extension/theme_words.py", "its gettext catalog, its numfig format"),),
    ),
    Upstream(
        "sphinx-sitemap",
        "2.9.0",
        ("sphinx_sitemap",),
        (Place("sitemap.py", "its sitemap.xml, merged"), Place("site_url.py", "its settings")),
    ),
    Upstream(
        "sphinxcontrib-bibtex",
        "2.7.0",
        ("sphinxcontrib.bibtex",),
        (Place("extension/theme_words.py", "the words its style writes (n.d., et al.)"),),
    ),
)
# The documented extension API (module -> names), which needs no place: see the module's docstring.
PUBLIC_API = {
    "sphinx.application": ("Sphinx",),
    "sphinx.config": ("Config",),
    "sphinx.errors": ("ExtensionError",),
    "sphinx.transforms": ("SphinxTransform",),
    "sphinx.locale": ("_", "get_translation"),
    "sphinx.util": ("logging",),
    "docutils": ("nodes",),
    "docutils.utils": ("new_document",),
}
_THEME = find_spec("pydata_sphinx_theme")
_THEME_DIR = Path(str(_THEME.origin if _THEME else "")).parent / "theme" / "pydata_sphinx_theme"
THEME_MACROS = _THEME_DIR / "static" / "webpack-macros.html"
DIGEST = re.compile(r"\?digest=([0-9a-f]+)")
CONTEXT_KEY = "book_theme_digest"  # what templates/static/webpack-macros.html reads


def problems(installed: dict[str, str]) -> list[str]:
    """Why the couplings cannot be trusted with the ``installed`` releases (name -> release): [] if they can."""
    return [
        f"{tool.distribution} is {installed.get(tool.distribution, 'not installed')}, but the book's site was "
        f"written against {tool.release}: check {tool.place_list()} (under booktools/website/), then change the "
        "release in booktools/website/extension/upstream.py and the pin in requirements.txt together"
        for tool in UPSTREAM
        if series(installed.get(tool.distribution, "")) != series(tool.release)
    ]


def series(release: str) -> str:
    """A release's series, its first two numbers (``0.17.1`` -> ``0.17``): a patch release of the same series is
    taken to keep the couplings (``requirements.txt`` still pins the exact one the outputs were made with)."""
    return ".".join(release.split(".")[:2])


def theme_asset_digest(macros: Path = THEME_MACROS) -> str:
    """The digest pydata-sphinx-theme appends to its assets' URLs, as its own template writes it.

    Raises:
        ExtensionError: if the template holds no digest, or more than one.
    """
    found = {str(digest) for digest in DIGEST.findall(macros.read_text(encoding="utf-8"))}
    if len(found) != 1:
        raise ExtensionError(f"{macros}: expected one asset digest, found {sorted(found) or 'none'}")
    return found.pop()


def _installed(distribution: str) -> str:
    """The installed release of ``distribution`` ("not installed" when it is not)."""
    try:
        return version(distribution)
    except PackageNotFoundError:
        return "not installed"


def check_upstream(app: Sphinx, config: Config) -> None:
    """Stop the build on a release the couplings were not written for; give the templates the theme's digest."""
    found = problems({tool.distribution: _installed(tool.distribution) for tool in UPSTREAM})
    if found:
        raise ExtensionError("\n".join(found))
    config.html_context[CONTEXT_KEY] = theme_asset_digest()


def setup_upstream(app: Sphinx) -> None:
    """Check the tools' releases at the start of every build."""
    app.connect("config-inited", check_upstream)
