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
  (``booktools.website.extension.icons``), and the theme's own scripts load deferred at
  the end of the page (``templates/static/webpack-macros.html``);
- the colour mode is set before the first paint, and the search index loads on
  the search page, when there is a query (``templates/layout.html``,
  ``templates/search.html``);
- the page's code blocks, icons and images are rewritten, and its stylesheets bundled
  into one, once the build is done
  (``booktools.website.extension.page_steps``), and the theme's check of which code
  blocks scroll runs as the reader reaches them (``booktools.website.extension.tab_stops``);
- the page has a favicon (``booktools.website.assets.FAVICON``), and ``static/book.css`` sizes the
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
from sphinx.config import Config

from booktools.website.assets import FAVICON
from booktools.website.extension.icon_font import preload_solid_font

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
    """Return ``asset`` (one of a page's ``script_files``) as a deferred script, if it is a file.

    The new script is made by the asset's own class (Sphinx's, whose module is private).
    """
    filename = getattr(asset, "filename", asset)
    attributes = dict(getattr(asset, "attributes", {}))
    if not filename or attributes.get("body") or is_deferred(attributes):
        return asset
    kind = attributes.get("type", "text/javascript")
    if kind not in ("text/javascript", "application/javascript"):
        return asset  # data, not code (JSON settings)
    attributes["defer"] = "defer"
    return type(asset)(filename, priority=getattr(asset, "priority", 500), **attributes)


def defer_scripts(app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: Any) -> None:
    """Defer the page's script files, load the ``ON_DEMAND`` ones on first use, inline ``documentation_options.js``.

    The scripts written in their stead are made by the class of the page's own (Sphinx's
    ``_JavaScript``, which no public module exports).
    """
    if app.builder.format != "html" or not isinstance(context.get("script_files"), list):
        return
    scripts, on_demand = [], []
    script_class: Any = None
    for asset in context["script_files"]:
        filename = str(getattr(asset, "filename", asset) or "")
        if posixpath.basename(filename) == INLINED_SCRIPT:
            body = app.builder.templates.render_string(INLINED_TEMPLATE.read_text(encoding="utf-8"), context)
            scripts.append(type(asset)("", priority=getattr(asset, "priority", 200), body=body.strip()))
        elif posixpath.basename(filename) in ON_DEMAND:
            on_demand.append(posixpath.relpath(filename, posixpath.dirname(ON_DEMAND_LOADER)))
            script_class = type(asset)
        else:
            scripts.append(deferred(asset))
    if on_demand:
        attributes = {"defer": "defer", "data-scripts": json.dumps(sorted(on_demand, key=_on_demand_order))}
        scripts.append(script_class(ON_DEMAND_LOADER, priority=800, **attributes))
    context["script_files"][:] = scripts  # in place: the templates read this very list


def _on_demand_order(name: str) -> int:
    return ON_DEMAND.index(posixpath.basename(name))


def add_favicon(app: Sphinx, config: Config) -> None:
    """Give every page the book's favicon, unless ``_config.yml`` names one."""
    if not config.html_favicon:
        config.html_favicon = str(FAVICON)


def setup_loading(app: Sphinx) -> None:
    """Register the favicon, the stylesheet and the deferral of every page's scripts."""
    app.connect("config-inited", add_favicon)
    app.add_css_file(CSS_FILE)
    # After every extension has added its scripts to the page (MathJax's, the theme's).
    app.connect("html-page-context", defer_scripts, priority=900)
    app.connect("html-page-context", preload_solid_font)
