"""The sizes of a slide and the height each cell takes on it (``booktools.slides.fit`` splits by them).

A slide is 1280x720 CSS pixels (reveal.js's ``width`` and ``height``); ``slides.css``, beside
the decks, sets the sizes of :data:`METRICS` (``booktools/slides/template/slides.css.j2``), so
that the estimates here and the layout in the browser agree. The estimates err on the tall
side, and ``tests/book/test_slide_layout.py`` measures the real slides.
"""

from __future__ import annotations

import base64
import math
import re
import struct
import textwrap
from dataclasses import dataclass

import nbformat

HEADING = re.compile(r"^(#{1,6}) +(.*)$")
DISPLAY_MATH = re.compile(r"\$\$(.*?)\$\$", re.DOTALL)
INLINE_MATH = re.compile(r"\$([^$]+)\$")
WIDE = re.compile(r"[\u1100-\u11ff\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef]")  # a full-width character


@dataclass(frozen=True)
class Metrics:
    """The sizes of a slide, in CSS pixels of reveal.js's slide (``slides.css`` sets them)."""

    width: int = 1280
    height: int = 720
    screen_scale: float = 0.96  # reveal.js's scale on a 1280x720 screen: its margin is 4%
    safety: int = 24  # kept free at the bottom: the estimates are estimates
    code_px: int = 19  # 18.2px on screen
    code_line_height: float = 1.3
    code_char: float = 0.602  # DejaVu Sans Mono's advance, in em
    code_padding: int = 6
    text_px: int = 24
    text_line_height: float = 1.4
    text_char: float = 0.5  # a Latin letter's mean advance, in em (a Hangul syllable's is 1)
    title_px: int = 34
    title_line_height: float = 1.2
    title_gap: int = 14
    paragraph_gap: int = 12
    cell_gap: int = 14
    output_gap: int = 4
    image_height: int = 330
    image_zoom: float = 1.5  # the heatmaps are drawn small for a page; a slide shows them larger
    math_margin: int = 8
    math_row: int = 44  # one row of a displayed formula; fractions take more (:meth:`math_height`)

    @property
    def budget(self) -> float:
        """The height the cells of one slide may take."""
        return self.height - self.safety

    @property
    def code_line(self) -> float:
        """The height of a line of code or printed output."""
        return self.code_px * self.code_line_height

    @property
    def output_columns(self) -> int:
        """How many characters of a printed output fit on a line."""
        return int((self.width - 4 * self.code_padding) / (self.code_px * self.code_char))

    def text_height(self, text: str, px: float, line_height: float) -> float:
        """The height of ``text`` set in a paragraph as wide as the slide."""
        text = INLINE_MATH.sub(lambda m: "x" * max(1, len(m.group(1)) // 4), text)
        ems = len(text) * self.text_char + len(WIDE.findall(text)) * (1 - self.text_char)
        lines = max(1, math.ceil(ems * px / self.width))
        return lines * px * line_height

    def math_height(self, tex: str) -> float:
        """The height of a displayed formula: its rows, taller with fractions or big operators."""
        rows = tex.count("\\\\") + 1
        tall = "\\frac" in tex or "\\sum" in tex or "\\sqrt" in tex
        return rows * self.math_row * (1.5 if tall else 1) + 2 * self.math_margin

    def markdown_height(self, source: str) -> float:
        """The height of a markdown cell: its title, paragraphs, list items and formulas."""
        height = 0.0
        blocks = []
        for match, prose in _split_math(source):
            if match:
                height += self.math_height(match)
            else:
                blocks += [block for block in re.split(r"\n\s*\n|\n(?=\s*[-*] )", prose) if block.strip()]
        for block in blocks:
            heading = HEADING.match(block.strip())
            if heading:
                height += self.text_height(heading.group(2), self.title_px, self.title_line_height) + self.title_gap
            else:
                text = " ".join(block.split())
                height += self.text_height(text, self.text_px, self.text_line_height) + self.paragraph_gap
        return height + self.cell_gap

    def code_height(self, source: str) -> float:
        """The height of a code cell's input."""
        return len(source.splitlines()) * self.code_line + 2 * self.code_padding + self.cell_gap

    def output_lines(self, text: str) -> list[str]:
        """The lines of a printed output as they wrap on the slide."""
        lines: list[str] = []
        for line in text.rstrip("\n").splitlines():
            lines += textwrap.wrap(line, self.output_columns, drop_whitespace=False) or [""]
        return lines

    def output_height(self, output: nbformat.NotebookNode) -> float:
        """The height of one output: printed lines or an image."""
        image = self.image_size(output)
        if image:
            return image[1] + self.output_gap
        text = output_text(output)
        return len(self.output_lines(text)) * self.code_line + self.output_gap if text is not None else 0.0

    def image_size(self, output: nbformat.NotebookNode) -> tuple[int, int] | None:
        """The size an image output is shown at: zoomed, at most as high and as wide as allowed."""
        natural = png_size(output)
        if not natural:
            return None
        width, height = natural
        scale = min(self.image_zoom, self.image_height / height, self.width / width)
        return round(width * scale), round(height * scale)

    def cell_height(self, cell: nbformat.NotebookNode) -> float:
        """The height of a cell: markdown, or code with its outputs."""
        if cell.cell_type == "markdown":
            return self.markdown_height(cell.source)
        shown = 0.0 if cell.metadata.get("transient", {}).get("remove_source") else self.code_height(cell.source)
        return shown + sum(self.output_height(output) for output in cell.get("outputs", []))


METRICS = Metrics()


def _split_math(source: str) -> list[tuple[str, str]]:
    """``source`` as ``(formula, "")`` and ``("", prose)`` pieces, in order."""
    pieces, last = [], 0
    for match in DISPLAY_MATH.finditer(source):
        pieces += [("", source[last : match.start()]), (match.group(1), "")]
        last = match.end()
    return pieces + [("", source[last:])]


def png_size(output: nbformat.NotebookNode) -> tuple[int, int] | None:
    """The width and height of an output's PNG image, read from its header; ``None`` if it has none."""
    data = output.get("data", {}).get("image/png")
    if not data:
        return None
    header = base64.b64decode("".join(data)[:44])
    width, height = struct.unpack(">II", header[16:24])
    return width, height


def output_text(output: nbformat.NotebookNode) -> str | None:
    """The text an output prints (a stream, a traceback, a plain-text result); ``None`` for an image."""
    if output.output_type == "stream":
        return str(output.text)
    if output.output_type == "error":
        return "\n".join(output.traceback)
    plain = output.get("data", {}).get("text/plain")
    return None if plain is None else "".join(plain)
