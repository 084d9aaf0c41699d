"""The tools' releases checked first of every Sphinx build, and the theme's asset digest read from the theme.

The registry of the couplings and its check are ``booktools.upstream``; the extension
package runs that check when it is imported, before its modules import a tool's insides.
Here :func:`check_upstream` runs it again as the first ``config-inited`` handler
(:data:`GUARD_PRIORITY`, below every other handler's), then gives the templates the digest
that pydata-sphinx-theme appends to its files' URLs, read from the installed theme's own
template (:func:`theme_asset_digest`), not copied:
``templates/static/webpack-macros.html`` appends it.
"""

from __future__ import annotations

import re
from importlib.util import find_spec
from pathlib import Path

from sphinx.application import Sphinx
from sphinx.config import Config
from sphinx.errors import ExtensionError

from booktools.upstream.guard import installed_problems

# Below every other config-inited handler's priority (the book's lowest is 0; Sphinx's default, 500).
GUARD_PRIORITY = -1
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


def check_upstream(app: Sphinx, config: Config) -> None:
    """Stop the build on a release the couplings were not written for; give the templates the theme's digest.

    Raises:
        ExtensionError: naming each tool of another series, its two releases and its places.
    """
    found = installed_problems()
    if found:
        raise ExtensionError("\n".join(found))
    config.html_context[CONTEXT_KEY] = theme_asset_digest()


def setup_upstream(app: Sphinx) -> None:
    """Check the tools' releases first of every build's ``config-inited`` handlers."""
    app.connect("config-inited", check_upstream, priority=GUARD_PRIORITY)
