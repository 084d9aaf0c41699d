"""Font Awesome's web fonts cut down to the glyphs the book's stylesheets name.

The page icons are inline SVG (``booktools.website.extension.icons``), but a few of the
theme's rules still draw an icon with Font Awesome's font in a pseudo-element: the
icon in an admonition's title (the exercises and their solutions), beside a
download link, after an external link in the navigation. For them a page that has
one downloads the whole font, ``fa-solid-900.woff2``: 156 KB for about ten glyphs,
with the priority of a font the page needs, on a phone's connection before the
page counts as loaded.

After the stylesheets are bundled (``booktools.website.extension.stylesheets``, which
keeps only the rules a page can use), every character that a bundle can draw (the
strings of its ``content`` declarations, ``content: "\\f0f3"``, and of its custom
properties, such as the theme's ``--pst-icon-*``, which ``content`` reads) is kept in
each of Font Awesome's fonts under ``_static/vendor/fontawesome/webfonts/``, and the
rest of the font is dropped: 3.5 to 6 KB per font instead of 25 to 156 KB, the
same glyphs where the theme uses them (``booktools.website.extension.font_subset``). A page with an admonition preloads
the solid font, so that it arrives with the page rather than after its first layout.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from sphinx.application import Sphinx

from booktools.website.extension.font_subset import FLAVORS, stylesheet_characters, subset_font

WEBFONTS = Path("_static") / "vendor" / "fontawesome" / "webfonts"
# The theme draws an admonition's title icon with the solid font: pages with admonitions preload it.
SOLID_FONT = WEBFONTS / "fa-solid-900.woff2"
ADMONITION_TITLE = re.compile(r'class="[^"]*\badmonition-title\b')


def subset_icon_fonts(outdir: Path, stylesheets: Iterable[Path]) -> list[Path]:
    """Cut every Font Awesome font of the site in ``outdir`` to the characters of ``stylesheets``.

    Returns the fonts rewritten (none when the theme ships no Font Awesome fonts).
    """
    characters = stylesheet_characters(stylesheets)
    fonts = sorted(path for path in (outdir / WEBFONTS).glob("*") if path.suffix in FLAVORS)
    for font in fonts:
        subset_font(font, characters)
    return fonts


def preload_solid_font(app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: Any) -> None:
    """On a page with an admonition, preload the solid icon font its title's icon is drawn in.

    Found only once the page is styled, the font would arrive after the first layout, and
    the browser would restyle every element whose fonts may change (thousands on the chapter).
    """
    if app.builder.format != "html" or not ADMONITION_TITLE.search(str(context.get("body", ""))):
        return
    href = context["pathto"](SOLID_FONT.as_posix(), 1)
    link = f'<link rel="preload" href="{href}" as="font" type="font/woff2" crossorigin="anonymous" />'
    context["metatags"] = context.get("metatags", "") + link + "\n"
