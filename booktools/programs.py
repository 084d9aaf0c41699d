"""Where the external programs the build runs are: the pinned npm packages and Chromium.

The npm packages: one folder per package, in a Python environment.
The Makefile installs each package with ``npm ci --prefix`` into a folder of the Python
environment that uses it, ``<environment>/share/d2l-book/<tool>/``: axe-core (the
accessibility tests), Thebe and KaTeX (the site's build) and Lighthouse (``make audit``)
in ``.venv``; reveal.js in ``.venv-d2lbook`` (the slides). The folder belongs to the
environment, not to the checkout, so the default is the environment running
(``sys.prefix``), which is also what Sphinx's extensions run in. The Makefile spells the
same folders (``AXE``, ``THEBE``, ``KATEX``, ``LIGHTHOUSE``, ``REVEAL``): make cannot ask
Python before ``.venv`` exists, so ``tests/tooling/test_npm_prefixes.py`` holds the two together.

Chromium prints the PDFs, runs the Lighthouse audit and drives the browser tests:
Debian's ``/usr/bin/chromium`` (CI installs it, ``.ci/run``), or the one ``BOOK_CHROMIUM``
names (:func:`chromium`).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

__all__ = ["CHROMIUM_VARIABLE", "NPM_TOOLS", "chromium", "npm_prefix"]

NPM_FOLDER = ("share", "d2l-book")
NPM_TOOLS = ("axe", "thebe", "katex", "lighthouse", "reveal")
CHROMIUM_VARIABLE = "BOOK_CHROMIUM"
DEFAULT_CHROMIUM = "/usr/bin/chromium"


def npm_prefix(tool: str, environment: Path | None = None) -> Path:
    """Return the folder the pinned npm package ``tool`` is installed into (``npm ci --prefix``).

    ``environment`` is the Python environment it belongs to: by default the one running
    (``sys.prefix``, the Makefile's ``.venv``); the slides pass ``Project.d2lbook_env`` for reveal.js.

    Raises:
        ValueError: if ``tool`` is not one of ``NPM_TOOLS``.
    """
    if tool not in NPM_TOOLS:
        raise ValueError(f"unknown npm tool {tool!r} (expected one of {', '.join(NPM_TOOLS)})")
    return (Path(sys.prefix) if environment is None else environment).joinpath(*NPM_FOLDER, tool)


def chromium() -> Path:
    """The Chromium the PDFs, the audit and the browser tests use (``BOOK_CHROMIUM``, else Debian's)."""
    return Path(os.environ.get(CHROMIUM_VARIABLE, DEFAULT_CHROMIUM))
