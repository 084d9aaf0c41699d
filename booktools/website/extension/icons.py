"""Icons as inline SVG, without Font Awesome's JavaScript.

pydata-sphinx-theme writes its icons as Font Awesome markup (``<i class="fa-solid
fa-sun">``) and loads ``fontawesome.js`` (1.4 MB, every icon of Font Awesome 6) to
replace each one by an SVG once the page has loaded: a large script on every
page, and a layout shift when the icons appear. Here the build does that
replacement instead: after each edition is written (``booktools.website.extension.loading``),
every empty ``<i>`` or ``<span>`` element whose classes name a Font Awesome icon becomes
the inline ``<svg>`` Font Awesome would have made (its classes, attributes and
``svg-inline--fa``, sized by the rules of ``static/book.css``), and the page loads
no icon script (``templates/static/webpack-macros.html``).

The icons' outlines are read from the very ``fontawesome.js`` the theme ships
(pinned with pydata-sphinx-theme in ``requirements.txt``): it holds one table per
style, ``var p={<name>:[width,height,[aliases],"unicode","path"],...}`` followed
by ``d("<prefix>",p)``. An icon the table lacks fails the build, naming it.
Font Awesome Free's icons are CC BY 4.0 (``fontawesome.js.LICENSE.txt``).
"""

from __future__ import annotations

import functools
import html
import importlib.resources
import re
from pathlib import Path

from sphinx.errors import ExtensionError

THEME_PACKAGE = "pydata_sphinx_theme"
FONTAWESOME_JS = Path(str(importlib.resources.files(THEME_PACKAGE))).joinpath(
    "theme", THEME_PACKAGE, "static", "scripts", "fontawesome.js"
)
# One style's table of icons, and the prefix it is registered under.
_PACK = re.compile(r"var p=\{(.*?)\};.{0,400}?d\(\"(fa[srb])\",p\)", re.DOTALL)
_ICON = re.compile(r'(?:"([\w-]+)"|([\w]+)):\[(\d+),(\d+),\[[^\]]*\],"[0-9a-f]*",("[^"]*"|\[[^\]]*\])\]')
# An empty <i> or <span> whose classes name a Font Awesome icon (the theme writes both).
_MARKUP = re.compile(r'<(i|span)\s([^>]*?class="[^"]*\bfa-[^"]*"[^>]*)>\s*</\1>')
_ATTRIBUTE = re.compile(r'([\w:-]+)="([^"]*)"')
STYLES = {"fa-solid": "fas", "fas": "fas", "fa-regular": "far", "far": "far", "fa-brands": "fab", "fab": "fab"}
# Classes that say how to draw an icon, not which one.
MODIFIERS = {"fa-lg", "fa-xs", "fa-sm", "fa-xl", "fa-fw", "fa-2x", "fa-3x", "fa-spin", "fa-pulse"}


@functools.cache
def icon_tables(source: Path = FONTAWESOME_JS) -> dict[str, dict[str, tuple[int, int, list[str]]]]:
    """Return Font Awesome's icons per style prefix (``fas``, ``far``, ``fab``): name -> (width, height, paths)."""
    if not source.is_file():
        raise ExtensionError(f"Font Awesome's icons are missing: {source} (pydata-sphinx-theme, requirements.txt)")
    tables: dict[str, dict[str, tuple[int, int, list[str]]]] = {}
    for pack in _PACK.finditer(source.read_text(encoding="utf-8")):
        table = tables.setdefault(pack.group(2), {})
        for icon in _ICON.finditer(pack.group(1)):
            name = icon.group(1) or icon.group(2)
            paths = re.findall(r'"([^"]*)"', icon.group(5))
            table[name] = (int(icon.group(3)), int(icon.group(4)), paths)
    if not {"fas", "far", "fab"} <= set(tables):
        raise ExtensionError(f"{source}: found the icon styles {sorted(tables)}, expected fas, far and fab")
    return tables


def svg_for(attributes: str) -> str:
    """Return the inline SVG for the attributes of one Font Awesome ``<i>`` element.

    Raises:
        KeyError: naming the icon, if Font Awesome has no such icon in that style.
    """
    attrs = {name: html.unescape(value) for name, value in _ATTRIBUTE.findall(attributes)}
    classes = attrs.pop("class", "").split()
    style = next((STYLES[name] for name in classes if name in STYLES), "fas")
    names = [name[3:] for name in classes if name.startswith("fa-") and name not in STYLES and name not in MODIFIERS]
    if len(names) != 1:
        raise KeyError(f"not one Font Awesome icon in class={' '.join(classes)!r}")
    width, height, paths = icon_tables()[style][names[0]]
    kept = [name for name in classes if name not in STYLES]
    attrs.setdefault("aria-hidden", "true")
    extra = "".join(f' {name}="{html.escape(value)}"' for name, value in attrs.items())
    body = "".join(f'<path fill="currentColor" d="{path}"/>' for path in paths)
    return (
        f'<svg class="svg-inline--fa {" ".join(kept)}"{extra} focusable="false" '
        f'xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}">{body}</svg>'
    )


def inline_icons(text: str) -> str:
    """Return an HTML page with every Font Awesome ``<i>`` or ``<span>`` replaced by its inline SVG."""
    return _MARKUP.sub(lambda match: svg_for(match.group(2)), text)
