"""What the Sphinx extension and the code outside Sphinx both name, so that neither imports the other.

The extension (``booktools.website.extension``) runs inside each edition's Sphinx build; the landing page
(``booktools.website.landing``) and ``make serve`` (``booktools.servers.serve``) run outside it, without Sphinx.
Importing the extension's modules from there would import Sphinx and the theme, and check their releases.
Nothing is imported here.
"""

from __future__ import annotations

from pathlib import Path

# The book's icon: every edition's pages (Sphinx's html_favicon) and the landing page link it.
FAVICON = Path(__file__).resolve().parent / "favicon.svg"
# Where make serve's web server answers with the Jupyter server's address and token; the Live code
# button asks there (static/live-code.js, given it by booktools.website.extension.live).
SERVER_INFO_PATH = "/_live/server.json"
