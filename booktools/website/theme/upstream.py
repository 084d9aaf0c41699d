"""The releases of the tools whose insides the extension depends on, checked before every build.

The extension overrides templates of two themes and reaches into Sphinx and
sphinxcontrib-katex where they offer no hook (each place below). Such a coupling holds
for the release it was written against: on any other, the build stops at its start
(``config-inited``) and names the tool, the two releases and the places to check, as
``booktools.checks.nbval_plugin`` does for nbval. ``requirements.txt`` pins the same
releases (``tests/tooling/test_upstream.py``); an upgrade is: check the places, then
change the release here and the pin there together.

The theme's asset digest that ``templates/static/webpack-macros.html`` appends to its
files' URLs is read from the installed theme's own template (:func:`theme_asset_digest`),
not copied.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from importlib.metadata import version
from importlib.util import find_spec
from pathlib import Path

from sphinx.application import Sphinx
from sphinx.config import Config
from sphinx.errors import ExtensionError


@dataclass(frozen=True)
class Upstream:
    """A tool, the release the extension's couplings to it were written for, and where they are."""

    distribution: str
    release: str
    places: str


UPSTREAM = (
    Upstream(
        "pydata-sphinx-theme",
        "0.17.1",
        "templates/layout.html (tab stops, colour mode), templates/static/webpack-macros.html, "
        "templates/search.html, icons.py (its fontawesome.js), a11y.py, stylesheets.py, tab_stops.py",
    ),
    Upstream(
        "sphinx-book-theme",
        "1.3.0",
        "templates/layout.html, templates/author.html, templates/sbt-sidebar-nav.html, templates/toggle-*-sidebar.html",
    ),
    Upstream(
        "Sphinx",
        "7.4.7",
        "theme_words.py (sphinx.locale.translators), katex_math.py (HTML5Translator, get_node_equation_number), "
        "loading.py (the assets' class)",
    ),
    Upstream("sphinxcontrib-katex", "0.9.11", "katex_server.py (KaTeXServer), katex_math.py"),
)
_THEME = find_spec("pydata_sphinx_theme")
_THEME_DIR = Path(str(_THEME.origin if _THEME else "")).parent / "theme" / "pydata_sphinx_theme"
THEME_MACROS = _THEME_DIR / "static" / "webpack-macros.html"
DIGEST = re.compile(r"\?digest=([0-9a-f]+)")
CONTEXT_KEY = "book_theme_digest"  # what templates/static/webpack-macros.html reads


def problems(installed: dict[str, str]) -> list[str]:
    """Why the couplings cannot be trusted with the ``installed`` releases (name -> release): [] if they can."""
    return [
        f"{tool.distribution} is {installed.get(tool.distribution, 'not installed')}, but the book's extension was "
        f"written against {tool.release}: check {tool.places} (booktools/website/theme/), then change the release "
        "in booktools/website/theme/upstream.py and the pin in requirements.txt together"
        for tool in UPSTREAM
        if installed.get(tool.distribution) != tool.release
    ]


def theme_asset_digest(macros: Path = THEME_MACROS) -> str:
    """The digest pydata-sphinx-theme appends to its assets' URLs, as its own template writes it.

    Raises:
        ExtensionError: if the template holds no digest, or more than one.
    """
    found = {str(digest) for digest in DIGEST.findall(macros.read_text(encoding="utf-8"))}
    if len(found) != 1:
        raise ExtensionError(f"{macros}: expected one asset digest, found {sorted(found) or 'none'}")
    return found.pop()


def check_upstream(app: Sphinx, config: Config) -> None:
    """Stop the build on a release the couplings were not written for; give the templates the theme's digest."""
    found = problems({tool.distribution: version(tool.distribution) for tool in UPSTREAM})
    if found:
        raise ExtensionError("\n".join(found))
    config.html_context[CONTEXT_KEY] = theme_asset_digest()


def setup_upstream(app: Sphinx) -> None:
    """Check the tools' releases at the start of every build."""
    app.connect("config-inited", check_upstream)
