"""d2lbook's slide marks in markdown: what the book shows and which marks a cell has.

In a markdown cell ``[**text**]`` starts a slide with ``text`` and ``(**text**)``
adds ``text`` to the current slide; ``[~~text~~]`` and ``(~~text~~)`` do the same
for text meant for the slides only. ``d2lbook.slides`` reads the marks to make the
slides (``booktools.slides.decks``); the book shows ``text`` without the marks and drops
the slides-only text (:func:`strip_slide_marks`, used by ``booktools.website.edition_copy``).
The translation checker compares :func:`mark_kinds` of each cell with English, so
every edition has the same slides. :func:`titles_inside_marks` moves a marked heading's
``#`` inside its mark, so that d2lbook, which keeps only the marked text, keeps it a heading.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

# One mark: its opening, its text (which may span lines, never another mark) and its closing.
MARK = re.compile(r"(\[\*\*|\(\*\*|\[~~|\(~~)(.*?)(\*\*\]|\*\*\)|~~\]|~~\))", re.DOTALL)
CLOSING = {"[**": "**]", "(**": "**)", "[~~": "~~]", "(~~": "~~)"}
SLIDES_ONLY = ("[~~", "(~~")
# A heading whose whole text is one mark: "## [**Checking Shapes**]".
MARKED_HEADING = re.compile(r"^(#{1,6}) +(\[\*\*|\(\*\*|\[~~|\(~~)(.*?)(\*\*\]|\*\*\)|~~\]|~~\)) *$", re.MULTILINE)


def _marks(text: str) -> list[re.Match[str]]:
    return [match for match in MARK.finditer(text) if CLOSING[match.group(1)] == match.group(3)]


def strip_slide_marks(text: str, keep_slides_only: bool = False) -> str:
    """Return ``text`` as the book shows it: marked text unmarked, slides-only text dropped.

    With ``keep_slides_only``, the slides-only text is unmarked and kept too (the
    translation checker reads every word a reader may see, on a page or a slide).
    """
    result, last = [], 0
    for match in _marks(text):
        result.append(text[last : match.start()])
        if keep_slides_only or match.group(1) not in SLIDES_ONLY:
            result.append(match.group(2))
        last = match.end()
    result.append(text[last:])
    return "".join(result)


def mark_kinds(text: str) -> list[str]:
    """Return the openings of the slide marks in ``text``, in order (e.g. ``["[**", "(**"]``)."""
    return [match.group(1) for match in _marks(text)]


def titles_inside_marks(text: str) -> str:
    """Return ``text`` with each marked heading's ``#`` inside its mark: ``[**## Checking Shapes**]``.

    d2lbook keeps only the marked text of a cell and joins it with the next mark's text, so
    ``## [**Checking Shapes**]`` would lose its ``##`` and run into the next sentence on the slide;
    with the ``##`` inside the mark, the slide keeps the heading as its title.
    """

    def inside(match: re.Match[str]) -> str:
        hashes, opening, title, closing = match.groups()
        if CLOSING[opening] != closing:
            return match.group(0)
        return f"{opening}{hashes} {title.strip()}\n{closing}"

    return MARKED_HEADING.sub(inside, text)


def has_slides(cells: Iterable[Any]) -> bool:
    """Whether a source page's ``cells`` carry slide marks: d2lbook makes a deck only of such a page."""
    return any(cell.cell_type == "markdown" and mark_kinds(cell.source) for cell in cells)
