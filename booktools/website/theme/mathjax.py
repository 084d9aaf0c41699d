"""Serve MathJax 3 from the site itself, so that the book reads without a network.

MathJax comes from the PyPI package ``django-static-mathjax`` (pinned in
``requirements.txt``), which ships MathJax's ``es5`` distribution as the Python
package ``mathjax``. ``_config.yml`` sets Sphinx's ``mathjax_path`` to a path
relative to ``_static`` (``mathjax/tex-mml-chtml.js``); after a successful build
this module copies that entry script, MathJax's lazily loaded components (TeX
extensions, fonts, accessibility, menu) and its licence into ``_static``.
"""

from __future__ import annotations

import importlib.resources
import posixpath
import shutil
from pathlib import Path

from sphinx.application import Sphinx
from sphinx.errors import ExtensionError

# Folders of MathJax's es5 distribution loaded on demand by a combined component.
COMPONENT_DIRS = ("a11y", "adaptors", "input", "output", "sre", "ui")


def mathjax_source() -> Path:
    """Return the folder of MathJax's ``es5`` distribution installed with the book's tools."""
    try:
        root = importlib.resources.files("mathjax")
    except ModuleNotFoundError as error:
        raise ExtensionError(
            "MathJax is missing: install the pinned django-static-mathjax from requirements.txt"
        ) from error
    return Path(str(root)) / "static" / "mathjax" / "es5"


def is_local(mathjax_path: str) -> bool:
    """Whether ``mathjax_path`` names a file under ``_static`` rather than a URL."""
    return "://" not in mathjax_path and not mathjax_path.startswith("/")


def copy_mathjax(app: Sphinx, exception: Exception | None) -> None:
    """Copy the MathJax that ``mathjax_path`` names into the built site's ``_static``."""
    if exception is not None or app.builder.format != "html" or not is_local(app.config.mathjax_path):
        return
    source = mathjax_source()
    entry = source / posixpath.basename(app.config.mathjax_path)
    if not entry.is_file():
        raise ExtensionError(f"mathjax_path {app.config.mathjax_path!r}: no {entry.name} in {source}")
    target = Path(app.outdir, "_static", posixpath.dirname(app.config.mathjax_path))
    target.mkdir(parents=True, exist_ok=True)
    shutil.copy2(entry, target / entry.name)
    shutil.copy2(source.parent / "LICENSE", target / "LICENSE")
    for name in COMPONENT_DIRS:
        shutil.copytree(source / name, target / name, dirs_exist_ok=True)
