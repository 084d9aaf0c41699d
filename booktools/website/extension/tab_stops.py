"""Keyboard access to scrollable code and outputs, without laying out the whole page at load.

pydata-sphinx-theme (the release upstream.py names) gives each code block and cell output that scrolls a tab
stop (``tabIndex = 0``), so that a keyboard can scroll it, and takes it from the
others (``-1``). It checks every such element of the page when the page has loaded,
by reading its scroll and client sizes, which makes the browser lay the page out
again there and then if anything changed since (a font or an image that arrived):
on the chapter, about 0.3 s of a phone's main thread, in one task.

The book changes that without touching the theme's script:

- ``templates/layout.html`` (the page's first, inline script) answers the theme's
  query for those elements (``document.querySelectorAll`` with exactly
  :data:`THEME_SELECTOR`) with no element, and instead checks each of them when it
  first comes within a screen's height of the viewport (an ``IntersectionObserver``),
  where the page is laid out already. The theme asks again on a resize and when
  the main content changes, and each time gets the same answer. The code blocks
  that ``booktools.website.extension.code_layout`` marks are left out: their content is
  laid out only when the reader comes near them, and the same script checks each of
  them whenever the browser lays it out. The override is written for the theme's
  release ``booktools.upstream`` names, the one ``requirements.txt`` pins: the
  build stops on another;
- :func:`focusable_code` gives every ``<pre>`` of a page ``tabindex="0"`` in the HTML
  (a step of ``booktools.website.extension.page_steps``), so that a code block the check
  has not reached yet can be scrolled from the keyboard too; the check takes the tab
  stop from the ones that do not scroll once it reaches them.
"""

from __future__ import annotations

import re

from sphinx.application import Sphinx
from sphinx.config import Config

from booktools.website.extension.code_layout import LINES_PROPERTY

# The selector the theme's check queries, as the override in templates/layout.html matches it.
THEME_SELECTOR = (
    "pre, .nboutput > .output_area, .cell_output > .output, .jp-RenderedHTMLCommon, .pst-scrollable-table-container"
)
# What templates/layout.html reads, from the pages' context.
CONTEXT_KEY = "book_tab_stops"
_PRE = re.compile(r"<pre(?=[\s>])(?![^>]*\btabindex=)")


def give_override_values(app: Sphinx, config: Config) -> None:
    """Give the templates what the override matches: the theme's selector, and the property
    that marks the code blocks laid out only when reached (the theme's release is checked by
    ``booktools.upstream``)."""
    config.html_context[CONTEXT_KEY] = {"selector": THEME_SELECTOR, "lines": LINES_PROPERTY}


def focusable_code(text: str) -> str:
    """Return an HTML page whose ``<pre>`` elements all have a tab stop (``tabindex="0"``)."""
    return _PRE.sub('<pre tabindex="0"', text)


def setup_tab_stops(app: Sphinx) -> None:
    """Give the templates the override's values at the start of the build."""
    app.connect("config-inited", give_override_values)
