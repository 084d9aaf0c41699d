"""The theme's asset digest, read from the installed theme and given to the templates.

pydata-sphinx-theme appends a digest to its files' URLs; the book's override of its
``static/webpack-macros.html`` (``templates/static/webpack-macros.html``) appends the same one,
which :func:`theme_asset_digest` reads from the installed theme's own template, not copied.

The tools' releases are not checked here: the extension package checks them when it is
imported (``booktools.upstream.guard.require_releases``), before its modules import a tool's
insides, in the same process as every handler of the build.
"""

from __future__ import annotations

import re
from importlib.util import find_spec
from pathlib import Path

from sphinx.application import Sphinx
from sphinx.config import Config
from sphinx.errors import ExtensionError

_THEME = find_spec("pydata_sphinx_theme")
_THEME_DIR = Path(str(_THEME.origin if _THEME else "")).parent / "theme" / "pydata_sphinx_theme"
THEME_MACROS = _THEME_DIR / "static" / "webpack-macros.html"
DIGEST = re.compile(r"\?digest=([0-9a-f]+)")
CONTEXT_KEY = "book_theme_digest"  # what templates/static/webpack-macros.html reads


def theme_asset_digest(macros: Path = THEME_MACROS) -> str:
    """The digest pydata-sphinx-theme appends to its assets' URLs, as its own template writes it.

    Raises:
        ExtensionError: if the template holds no digest, or more than one.
    """
    found = {str(digest) for digest in DIGEST.findall(macros.read_text(encoding="utf-8"))}
    if len(found) != 1:
        raise ExtensionError(f"{macros}: expected one asset digest, found {sorted(found) or 'none'}")
    return found.pop()


def give_theme_digest(app: Sphinx, config: Config) -> None:
    """Give the templates the theme's asset digest (``html_context``'s :data:`CONTEXT_KEY`)."""
    config.html_context[CONTEXT_KEY] = theme_asset_digest()


def setup_theme_digest(app: Sphinx) -> None:
    """Give every build's templates the theme's asset digest once its configuration is read."""
    app.connect("config-inited", give_theme_digest)
