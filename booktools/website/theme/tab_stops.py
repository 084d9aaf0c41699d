"""Keyboard access to scrollable code and outputs, without laying out the whole page at load.

pydata-sphinx-theme 0.17.1 gives each code block and cell output that scrolls a tab
stop (``tabIndex = 0``), so that a keyboard can scroll it, and takes it from the
others (``-1``). It checks every such element of the page when the page has loaded,
by reading its scroll and client sizes, which makes the browser lay the page out
again there and then if anything changed since (a font or an image that arrived):
on the chapter, about 0.3 s of a phone's main thread, in one task.

Here, after the build:

- :func:`check_as_reached` rewrites the theme's script
  (``_static/scripts/pydata-sphinx-theme.js``) to do the same check per element, when
  it first comes within a screen's height of the viewport (an ``IntersectionObserver``),
  where the page is laid out already. The theme re-checks on a resize and when the
  main content changes, as before. It leaves out the code blocks that
  ``booktools.website.theme.code_layout`` marks: their content is laid out only when
  the reader comes near them, so reading their sizes earlier would find nothing to
  scroll; ``templates/layout.html`` checks each of them whenever the browser lays it
  out. The theme is pinned in ``requirements.txt``; the build fails if its script no
  longer holds the check;
- :func:`focusable_code` gives every ``<pre>`` of a page ``tabindex="0"`` in the HTML,
  so that a code block the check has not reached yet can be scrolled from the keyboard
  too; the check takes the tab stop from the ones that do not scroll once it reaches them.
"""

from __future__ import annotations

import re
from pathlib import Path

from booktools.website.theme.code_layout import LINES_PROPERTY

THEME_SCRIPT = Path("_static") / "scripts" / "pydata-sphinx-theme.js"
SCROLLABLE = (
    '["pre",".nboutput > .output_area",".cell_output > .output",".jp-RenderedHTMLCommon",'
    '".pst-scrollable-table-container"]'
)
# The theme's check, as its minified script holds it: every element, at once.
EAGER_CHECK = (
    "const e=()=>{document.querySelectorAll(" + SCROLLABLE + '.join(", ")).forEach(e=>{'
    "e.tabIndex=e.scrollWidth>e.clientWidth||e.scrollHeight>e.clientHeight?0:-1})}"
)
# The same check, per element, when the element first comes within a screen's height of the viewport;
# not for the code blocks laid out only when reached (code_layout), which templates/layout.html checks.
CHECK_AS_REACHED = (
    "const e=()=>{const t=new IntersectionObserver(n=>{for(const o of n)if(o.isIntersecting){const e=o.target;"
    "e.tabIndex=e.scrollWidth>e.clientWidth||e.scrollHeight>e.clientHeight?0:-1,t.unobserve(e)}},"
    '{rootMargin:"100% 0px"});document.querySelectorAll(' + SCROLLABLE + '.join(", "))'
    '.forEach(e=>e.style.getPropertyValue("' + LINES_PROPERTY + '")||t.observe(e))}'
)
_PRE = re.compile(r"<pre(?=[\s>])(?![^>]*\btabindex=)")


class ThemeScriptChanged(Exception):
    """The theme's script does not hold the check this module rewrites."""


def check_as_reached(outdir: Path) -> bool:
    """Rewrite the theme's script in ``outdir`` to check each element when it is reached.

    Returns False when the site has no theme script. Raises :class:`ThemeScriptChanged` when
    the script holds neither the theme's check nor the rewritten one.
    """
    script = outdir / THEME_SCRIPT
    if not script.is_file():
        return False
    text = script.read_text(encoding="utf-8")
    if CHECK_AS_REACHED in text:
        return True
    if text.count(EAGER_CHECK) != 1:
        raise ThemeScriptChanged(f"{script}: pydata-sphinx-theme's tab-stop check is not where it was in 0.17.1")
    script.write_text(text.replace(EAGER_CHECK, CHECK_AS_REACHED), encoding="utf-8")
    return True


def focusable_code(text: str) -> str:
    """Return an HTML page whose ``<pre>`` elements all have a tab stop (``tabindex="0"``)."""
    return _PRE.sub('<pre tabindex="0"', text)
