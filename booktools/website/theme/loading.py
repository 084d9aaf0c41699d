"""What a page loads before its first paint, and what waits: the book's pages fast on a phone.

``make audit`` (``booktools.checks.audit``) measures the pages with Lighthouse;
``tests/book/test_page_weight.py`` guards what makes its scores. Here:

- every script file of a page is deferred (it runs once the page is parsed, in
  order), except what is already deferred, asynchronous or a module; the copy
  buttons' scripts load on the reader's first pointer, touch, key or focus event
  (``static/on-demand.js``), not with the page. Sphinx's
  ``documentation_options.js``, whose object the page's inline scripts complete at
  once (``DOCUMENTATION_OPTIONS.pagename = ...``), is written into the page
  instead: a few hundred bytes that would otherwise cost a request before the
  first paint;
- Font Awesome's script is not loaded: the icons are inline SVG
  (``booktools.website.theme.icons``), and the theme's own scripts load deferred at
  the end of the page (``templates/static/webpack-macros.html``);
- the colour mode is set before the first paint, and the search index loads on
  the search page, when there is a query (``templates/layout.html``,
  ``templates/search.html``);
- code blocks lose the spans of tokens drawn as plain text (``booktools.website.theme.code_markup``):
  half the elements of a page of code;
- code blocks are styled and laid out when the reader comes near them, holding the
  height of their lines until then (``booktools.website.theme.code_layout``);
- the theme's script checks which code blocks scroll (and so need a tab stop) as the
  reader reaches them, not all at load, which laid the whole page out again; every
  code block has a tab stop until checked (``booktools.website.theme.tab_stops``);
- every image has its size (``booktools.website.theme.image_sizes``): no layout shift;
- the page links one stylesheet, its theme's bundled without the rules no page uses
  (``booktools.website.theme.stylesheets``), and Font Awesome's fonts, which a few of
  those rules still use, hold only the glyphs they name (``booktools.website.theme.icon_font``);
- the page has a favicon (``static/favicon.svg``), and ``static/book.css`` sizes the
  inline icons, sets the fonts of each edition's script (system fonts, with
  Noto Sans CJK KR for Hangul: no web font to wait for, no reflow when one
  arrives) and breaks Korean lines between words only (``word-break: keep-all``).
"""

from __future__ import annotations

import json
import posixpath
from pathlib import Path
from typing import Any

import sphinx
from sphinx.application import Sphinx
from sphinx.builders.html._assets import _JavaScript
from sphinx.config import Config
from sphinx.errors import ExtensionError

from booktools.website.theme.code_layout import number_code_lines
from booktools.website.theme.code_markup import plain_code_tokens
from booktools.website.theme.icon_font import preload_solid_font, subset_icon_fonts
from booktools.website.theme.icons import inline_icons
from booktools.website.theme.image_sizes import size_images
from booktools.website.theme.stylesheets import bundle_site
from booktools.website.theme.tab_stops import ThemeScriptChanged, check_as_reached, focusable_code

HERE = Path(__file__).resolve().parent
FAVICON = HERE / "static" / "favicon.svg"
CSS_FILE = "book.css"
INLINED_SCRIPT = "documentation_options.js"
INLINED_TEMPLATE = Path(sphinx.__file__).parent / "themes" / "basic" / "static" / "documentation_options.js.jinja"
LOADING_ATTRIBUTES = ("defer", "async")
# Loaded, in this order, on the reader's first pointer, touch, key or focus event (static/on-demand.js):
# the copy buttons, which sphinx-copybutton adds to every code block of a page at once.
ON_DEMAND = ("clipboard.min.js", "copybutton.js")
ON_DEMAND_LOADER = "_static/on-demand.js"


def is_deferred(attributes: dict[str, Any]) -> bool:
    """Whether a script with these attributes waits for the page (deferred, asynchronous or a module)."""
    return any(attributes.get(name) for name in LOADING_ATTRIBUTES) or attributes.get("type") == "module"


def deferred(asset: Any) -> Any:
    """Return ``asset`` (one of a page's ``script_files``) as a deferred script, if it is a file."""
    filename = getattr(asset, "filename", asset)
    attributes = dict(getattr(asset, "attributes", {}))
    if not filename or attributes.get("body") or is_deferred(attributes):
        return asset
    kind = attributes.get("type", "text/javascript")
    if kind not in ("text/javascript", "application/javascript"):
        return asset  # data, not code (JSON settings)
    attributes["defer"] = "defer"
    return _JavaScript(filename, priority=getattr(asset, "priority", 500), **attributes)


def defer_scripts(app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: Any) -> None:
    """Defer the page's script files, load the ``ON_DEMAND`` ones on first use, inline ``documentation_options.js``."""
    if app.builder.format != "html" or not isinstance(context.get("script_files"), list):
        return
    scripts, on_demand = [], []
    for asset in context["script_files"]:
        filename = str(getattr(asset, "filename", asset) or "")
        if posixpath.basename(filename) == INLINED_SCRIPT:
            body = app.builder.templates.render_string(INLINED_TEMPLATE.read_text(encoding="utf-8"), context)
            scripts.append(_JavaScript("", priority=getattr(asset, "priority", 200), body=body.strip()))
        elif posixpath.basename(filename) in ON_DEMAND:
            on_demand.append(posixpath.relpath(filename, posixpath.dirname(ON_DEMAND_LOADER)))
        else:
            scripts.append(deferred(asset))
    if on_demand:
        attributes = {"defer": "defer", "data-scripts": json.dumps(sorted(on_demand, key=_on_demand_order))}
        scripts.append(_JavaScript(ON_DEMAND_LOADER, priority=800, **attributes))
    context["script_files"][:] = scripts  # in place: the templates read this very list


def _on_demand_order(name: str) -> int:
    return ON_DEMAND.index(posixpath.basename(name))


def add_favicon(app: Sphinx, config: Config) -> None:
    """Give every page the book's favicon, unless ``_config.yml`` names one."""
    if not config.html_favicon:
        config.html_favicon = str(FAVICON)


def finish_pages(app: Sphinx, exception: Exception | None) -> None:
    """Rewrite every page the build wrote (icons, code blocks, images), bundle its stylesheets, cut its icon fonts.

    The theme's script then gives a code block its tab stop when the reader reaches it (``tab_stops``).
    """
    if exception is not None or app.builder.format != "html":
        return
    for page in Path(app.outdir).rglob("*.html"):
        text = page.read_text(encoding="utf-8")
        try:
            changed = number_code_lines(focusable_code(size_images(plain_code_tokens(inline_icons(text)), page.parent)))
        except KeyError as error:
            raise ExtensionError(f"{page.name}: Font Awesome icon: {error}") from error
        if changed != text:
            page.write_text(changed, encoding="utf-8")
    subset_icon_fonts(Path(app.outdir), bundle_site(Path(app.outdir)))
    try:
        check_as_reached(Path(app.outdir))
    except ThemeScriptChanged as error:
        raise ExtensionError(str(error)) from error


def setup_loading(app: Sphinx) -> None:
    """Register the favicon, the stylesheet, the deferral of every page's scripts and the rewriting of pages."""
    app.connect("config-inited", add_favicon)
    # After every other handler has written into the site (pydata-sphinx-theme its pygments.css, Thebe).
    app.connect("build-finished", finish_pages, priority=900)
    app.add_css_file(CSS_FILE)
    # After every extension has added its scripts to the page (MathJax's, the theme's).
    app.connect("html-page-context", defer_scripts, priority=900)
    app.connect("html-page-context", preload_solid_font)
