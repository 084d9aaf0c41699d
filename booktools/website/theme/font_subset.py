"""A web font cut down to the characters a site draws with it (fontTools' subsetter).

Used for Font Awesome's fonts (``booktools.website.theme.icon_font``) and KaTeX's
(``booktools.website.theme.katex_math``). The subsetter and the WOFF2 encoder
(Brotli) are pinned in ``requirements.txt``.
"""

from __future__ import annotations

from pathlib import Path

from fontTools import subset

FLAVORS = {".woff2": "woff2", ".ttf": None}  # the font files the sites' @font-face rules name


def subset_font(path: Path, characters: set[int]) -> None:
    """Rewrite the font at ``path`` with only the glyphs of ``characters`` (those it has)."""
    options = subset.Options()
    options.flavor = FLAVORS[path.suffix]
    font = subset.load_font(str(path), options)
    subsetter = subset.Subsetter(options)
    subsetter.populate(unicodes=characters & set(font.getBestCmap()))
    subsetter.subset(font)
    subset.save_font(font, str(path), options)
