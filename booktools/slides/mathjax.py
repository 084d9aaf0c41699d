"""Where the slides' MathJax 3 comes from, so that the decks read without a network.

The book's pages typeset their math at build time (``booktools.website.extension.katex_math``);
the reveal.js decks, rendered by nbconvert from the slide notebooks, still typeset theirs
in the browser. MathJax comes from the PyPI package ``django-static-mathjax`` (pinned in
``requirements.txt``), which ships MathJax's ``es5`` distribution as the Python
package ``mathjax``; ``booktools.slides.decks`` copies its entry script
(``tex-mml-chtml.js``), the lazily loaded components (``COMPONENT_DIRS``) and its
licence beside the decks.
"""

from __future__ import annotations

import importlib.resources
from pathlib import Path

from booktools.slides.errors import SlidesError

# Folders of MathJax's es5 distribution loaded on demand by a combined component.
COMPONENT_DIRS = ("a11y", "adaptors", "input", "output", "sre", "ui")
PACKAGE = "mathjax"  # the import name of django-static-mathjax, which the slides stage's tools count


def mathjax_source() -> Path:
    """Return the folder of MathJax's ``es5`` distribution installed with the book's tools.

    Raises:
        SlidesError: if django-static-mathjax is not installed.
    """
    try:
        root = importlib.resources.files(PACKAGE)
    except ModuleNotFoundError as error:
        raise SlidesError(
            "MathJax is missing: install the pinned django-static-mathjax from requirements.txt"
        ) from error
    return Path(str(root)) / "static" / "mathjax" / "es5"
