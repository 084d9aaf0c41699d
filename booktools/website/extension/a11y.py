"""Accessibility fixes for what the book's extensions and theme write into every page.

``tests/book/test_accessibility.py`` runs axe-core on every built page; each
fix here answers one of its findings whose source is not the book's own
templates, and names the upstream report:

- **Citations** (docutils 0.21's HTML5 writer): the bibliography is a
  ``role="list"`` whose entries carry ``role="doc-biblioentry"``, a DPUB-ARIA role
  deprecated because it cannot be a list's item (w3c/dpub-aria#22, followed by
  axe-core, dequelabs/axe-core#3253): axe reports the list as missing its required
  children (``aria-required-children``, critical). Here each entry is a
  ``role="listitem"``, as DPUB-ARIA 1.1 advises.
- **Hidden code cells** (myst-nb 1.4, ``HideCodeCellNode``): the ``<summary>`` of a
  collapsed cell is named ``aria-label="Toggle hidden content"``, in English, while
  it shows "Show code cell source" (translated by ``nb_code_prompt_show``): the
  accessible name lacks the visible label (``label-content-name-mismatch``, WCAG
  2.5.3; no upstream report found in executablebooks/MyST-NB). Here the summary is
  named by the text it shows.
- ``static/a11y.css``: a visible focus ring on sphinx-togglebutton's button, whose
  stylesheet removes every outline (``button.toggle-button {outline: none}`` in
  sphinx-togglebutton 0.4.5's ``togglebutton.css``), and on the article header's
  buttons and menu items, whose ring pydata-sphinx-theme draws as a box-shadow that
  sphinx-book-theme (the release upstream.py names) removes (``.bd-header-article .btn:focus {box-shadow:
  none}``) (no upstream report of either found); long inline code in prose may wrap,
  so that no page scrolls sideways on a phone.

The theme's own components are overridden in ``templates/`` (see each file's
comment): ``search-button-field.html`` and ``theme-switcher.html``.
"""

from __future__ import annotations

import importlib
from html import escape
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx

CSS_FILE = "a11y.css"
# myst-nb's node for a collapsed code cell; found when the build starts, after every extension's setup.
MYST_NB_MODULE = "myst_nb.sphinx_"
HIDDEN_CELL_NODE = "HideCodeCellNode"


def visit_citation(self: Any, node: nodes.citation) -> None:
    """Open one bibliography entry as a list item (and the list, before the first entry)."""
    if not isinstance(node.previous_sibling(), nodes.citation):
        self.body.append('<div role="list" class="citation-list">\n')
    self.body.append(self.starttag(node, "div", classes=[node.tagname], role="listitem"))


def depart_citation(self: Any, node: nodes.citation) -> None:
    """Close the entry (and the list, after the last entry)."""
    self.body.append("</div>\n")
    if not isinstance(node.next_node(descend=False, siblings=True), nodes.citation):
        self.body.append("</div>\n")


def visit_hidden_cell(self: Any, node: nodes.Element) -> None:
    """Open a collapsed code cell: a ``<details>`` whose summary is named by its visible text."""
    classes = " ".join(node["classes"])
    self.body.append(f'<details class="admonition hide {classes}">\n<summary>\n')
    self.body.append(f'<p class="collapsed admonition-title">{escape(node["prompt_show"])}</p>\n')
    self.body.append(f'<p class="expanded admonition-title">{escape(node["prompt_hide"])}</p>\n')
    self.body.append("</summary>\n")


def depart_hidden_cell(self: Any, node: nodes.Element) -> None:
    """Close a collapsed code cell."""
    self.body.append("</details>\n")


def override_hidden_cells(app: Sphinx) -> None:
    """Render myst-nb's collapsed cells with :func:`visit_hidden_cell` (myst-nb registers its own in setup)."""
    try:
        node_class = getattr(importlib.import_module(MYST_NB_MODULE), HIDDEN_CELL_NODE)
    except (ImportError, AttributeError):
        return  # no myst-nb, or one that renders collapsed cells otherwise: the axe test says which
    app.add_node(node_class, override=True, html=(visit_hidden_cell, depart_hidden_cell))


def setup_a11y(app: Sphinx) -> None:
    """Register the citation visitors, the hidden-cell override and the stylesheet."""
    app.add_node(nodes.citation, override=True, html=(visit_citation, depart_citation))
    app.connect("builder-inited", override_hidden_cells)
    app.add_css_file(CSS_FILE)
