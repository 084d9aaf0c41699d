"""Every image of a page with its size, so that nothing moves when it arrives.

An ``<img>`` without ``width`` and ``height`` takes no room until its file has
loaded, and then pushes down what follows it (a layout shift, which Lighthouse
counts). Sphinx and myst-nb write the heatmaps and figures without their size;
after the build, :func:`size_images` gives each image of a page that lacks them
the pixel size of its file (a PNG or JPEG read with Pillow, an SVG from its
``width``/``height`` or ``viewBox``), and every image gets ``decoding="async"`` and
``loading="lazy"``: the browser fetches an image when the reader scrolls near it,
not with the page (a chapter's heatmaps are 100 KB that a phone would otherwise
download before the page counts as loaded; the text is what a page shows first).
``static/book.css`` keeps their aspect ratio when the column is narrower.
"""

from __future__ import annotations

import re
import urllib.parse
import xml.etree.ElementTree as ElementTree
from pathlib import Path

from PIL import Image

_IMG = re.compile(r"<img\s([^>]*?)\s*/?>")
_SRC = re.compile(r'\ssrc="([^"]+)"')
_NUMBER = re.compile(r"^\s*([0-9.]+)\s*(px)?\s*$")


def svg_size(path: Path) -> tuple[int, int] | None:
    """Return an SVG's size in CSS pixels: its ``width`` and ``height``, else its ``viewBox``'s."""
    root = ElementTree.parse(path).getroot()
    width, height = (_NUMBER.match(root.get(name, "")) for name in ("width", "height"))
    if width and height:
        return round(float(width.group(1))), round(float(height.group(1)))
    box = root.get("viewBox", "").replace(",", " ").split()
    if len(box) == 4:
        return round(float(box[2])), round(float(box[3]))
    return None


def image_size(path: Path) -> tuple[int, int] | None:
    """Return an image file's size in pixels, or None if it cannot be read."""
    if not path.is_file():
        return None
    if path.suffix.lower() == ".svg":
        return svg_size(path)
    with Image.open(path) as image:
        width, height = image.size
    return int(width), int(height)


def size_images(text: str, folder: Path) -> str:
    """Return an HTML page (in ``folder``) whose images all have a size, ``decoding`` and ``loading``."""

    def sized(match: re.Match[str]) -> str:
        attributes = match.group(1)
        added = ""
        found = _SRC.search(" " + attributes)
        source = found.group(1) if found else "data:"
        if not source.startswith(("data:", "http")) and not re.search(r"\swidth=", " " + attributes):
            size = image_size(folder / urllib.parse.unquote(source.split("?")[0]))
            added += f' width="{size[0]}" height="{size[1]}"' if size else ""
        added += "" if "decoding=" in attributes else ' decoding="async"'
        added += "" if "loading=" in attributes else ' loading="lazy"'
        return f"<img {attributes}{added} />"

    return _IMG.sub(sized, text)
