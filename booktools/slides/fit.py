"""Slides that fit a 1280x720 screen: d2lbook's slide notebooks, split where a slide would be too tall.

d2lbook starts a slide at each ``[**`` mark and lets everything up to the next one follow
on the same slide: a long function, its output and the next paragraph, far past the
screen's bottom edge. :func:`fit_slides` estimates the height of every cell from the
sizes in :data:`METRICS` (the ones ``slides.css`` sets, beside the decks) and:

- starts a new slide at the cell that would not fit on the current one;
- cuts a code cell taller than a slide at its top-level statements and its classes'
  methods (where a ``def``, ``class``... follows a blank line), as many per slide as
  fit, and leaves out of the deck a statement or method taller than a whole slide (a
  long helper, read on the page instead): :class:`Fitted` lists them;
- puts an output that does not fit under its code on a slide of its own, and shortens
  a printed output taller than a slide to the lines that fit, ending it with ``⋮``;
- starts a new slide at a title in the middle of a cell, and capitalizes the text that
  follows a title (d2lbook capitalizes sentences, not a fragment taken from mid-sentence);
- shows the heatmaps larger than the page does (:attr:`Metrics.image_zoom`), within bounds.

The estimates are checked, not trusted: ``tests/book/test_slide_layout.py`` steps through
every slide of every deck at 1280x720 and fails on anything that reaches past the screen.
"""

from __future__ import annotations

import base64
import copy
import math
import re
import struct
import textwrap
from dataclasses import dataclass, field

import nbformat

ELLIPSIS = "⋮"  # the last line of a printed output shortened to fit (no words: every edition)
TOP_LEVEL = re.compile(r"^[^\s)\]}#]")  # a line that starts a top-level statement
METHOD = re.compile(r"^    (def|async def|@)\b")  # a line that starts a method of a class
DEFINITION = re.compile(r"\s*(?:async\s+)?(def|class)\s+(\w+)")  # what a block of code defines
HEADING = re.compile(r"^(#{1,6}) +(.*)$")
DISPLAY_MATH = re.compile(r"\$\$(.*?)\$\$", re.DOTALL)
INLINE_MATH = re.compile(r"\$([^$]+)\$")
WIDE = re.compile(r"[\u1100-\u11ff\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef]")


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
        text = _output_text(output)
        return len(self.output_lines(text)) * self.code_line + self.output_gap if text is not None else 0.0

    def image_size(self, output: nbformat.NotebookNode) -> tuple[int, int] | None:
        """The size an image output is shown at: zoomed, at most as high and as wide as allowed."""
        natural = _png_size(output)
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


@dataclass
class Fitted:
    """A deck's cells that fit, and what was left out of it (each a line saying what and why)."""

    cells: list[nbformat.NotebookNode]
    left_out: list[str] = field(default_factory=list)


def _split_math(source: str) -> list[tuple[str, str]]:
    """``source`` as ``(formula, "")`` and ``("", prose)`` pieces, in order."""
    pieces, last = [], 0
    for match in DISPLAY_MATH.finditer(source):
        pieces += [("", source[last : match.start()]), (match.group(1), "")]
        last = match.end()
    return pieces + [("", source[last:])]


def _png_size(output: nbformat.NotebookNode) -> tuple[int, int] | None:
    data = output.get("data", {}).get("image/png")
    if not data:
        return None
    header = base64.b64decode("".join(data)[:44])
    width, height = struct.unpack(">II", header[16:24])
    return width, height


def _output_text(output: nbformat.NotebookNode) -> str | None:
    if output.output_type == "stream":
        return str(output.text)
    if output.output_type == "error":
        return "\n".join(output.traceback)
    plain = output.get("data", {}).get("text/plain")
    return None if plain is None else "".join(plain)


def _slide_type(cell: nbformat.NotebookNode) -> str:
    return str(cell.metadata.get("slideshow", {}).get("slide_type", "-"))


def _start_slide(cell: nbformat.NotebookNode) -> None:
    cell.metadata.setdefault("slideshow", {})["slide_type"] = "slide"


def _after_blank_line(lines: list[str], pattern: re.Pattern[str]) -> list[list[str]]:
    blocks: list[list[str]] = [[]]
    for i, line in enumerate(lines):
        if blocks[-1] and pattern.match(line) and i and not lines[i - 1].strip():
            blocks.append([])
        blocks[-1].append(line)
    return blocks


def statement_blocks(source: str) -> list[str]:
    """Split code where a top-level statement follows a blank line, and a class where a method does.

    A function stays whole, with the functions it defines inside: a slide with half of one
    would read as a fragment.
    """
    blocks = []
    for statement in _after_blank_line(source.splitlines(), TOP_LEVEL):
        header = next((line for line in statement if not line.startswith("@")), "")
        parts = _after_blank_line(statement, METHOD) if header.startswith("class ") else [statement]
        blocks += ["\n".join(part).strip("\n") for part in parts]
    return [block for block in blocks if block.strip()]


def _name(lines: list[str]) -> str:
    """What a block of code defines (``show_heatmaps``), or its first line."""
    for line in lines:
        definition = DEFINITION.match(line)
        if definition:
            return definition.group(2)
    return lines[0].strip()


def _fit_output(output: nbformat.NotebookNode, metrics: Metrics) -> nbformat.NotebookNode:
    """An image output at the size it is shown at; a printed output shortened to the lines that fit on a slide."""
    image = metrics.image_size(output)
    if image:
        sized = copy.deepcopy(output)
        sized.metadata = {**output.get("metadata", {}), "image/png": {"width": image[0], "height": image[1]}}
        return sized
    text = _output_text(output)
    if text is None or output.output_type == "error":
        return output
    lines = metrics.output_lines(text)
    room = int((metrics.budget - metrics.output_gap - metrics.cell_gap) / metrics.code_line)
    if len(lines) <= room:
        return output
    shortened = copy.deepcopy(output)
    kept = "\n".join(lines[: room - 1] + [ELLIPSIS]) + "\n"
    if output.output_type == "stream":
        shortened.text = kept
    else:
        shortened.data = {"text/plain": kept}
    return shortened


def _split_code(cell: nbformat.NotebookNode, metrics: Metrics, left_out: list[str]) -> list[nbformat.NotebookNode]:
    """A code cell as cells that each fit on a slide: chunks of its code, then its outputs."""
    outputs = [_fit_output(output, metrics) for output in cell.get("outputs", [])]
    parts: list[nbformat.NotebookNode] = []
    chunk: list[str] = []
    results_only = cell.metadata.get("transient", {}).get("remove_source", False)
    owner = ""  # the class whose methods follow
    for block in [] if results_only else statement_blocks(cell.source):
        lines = block.splitlines()
        name = _name(lines)
        if not block.startswith(" "):
            header = next((line for line in lines if not line.startswith("@")), "")
            owner = f"{name}." if header.startswith("class ") else ""
        if metrics.code_height(block) > metrics.budget:
            what = f"{owner}{name}" if block.startswith(" ") else name
            left_out.append(f"{what} ({len(lines)} lines, taller than a slide)")
            continue
        if chunk and metrics.code_height("\n\n".join([*chunk, block])) > metrics.budget:
            parts.append(nbformat.v4.new_code_cell("\n\n".join(chunk), metadata=copy.deepcopy(cell.metadata)))
            chunk = []
        chunk.append(block)
    if chunk or results_only:
        parts.append(nbformat.v4.new_code_cell("\n\n".join(chunk), metadata=copy.deepcopy(cell.metadata)))
    if not parts:
        return []
    last = parts[-1]
    last.outputs, last.execution_count = outputs, cell.get("execution_count")
    if outputs and metrics.cell_height(last) > metrics.budget:
        last.outputs = []
        if results_only:
            parts.pop()
        for output in outputs:
            if (
                not parts
                or not parts[-1].outputs
                or metrics.cell_height(parts[-1]) + metrics.output_height(output) > metrics.budget
            ):
                parts.append(nbformat.v4.new_code_cell("", metadata={"transient": {"remove_source": True}}))
            parts[-1].outputs.append(output)
    for part in parts[1:]:
        _start_slide(part)
    return parts


def _capitalize_after_title(source: str) -> str:
    lines = source.split("\n")
    for i, line in enumerate(lines[:-1]):
        if HEADING.match(line):
            following = next((j for j in range(i + 1, len(lines)) if lines[j].strip()), None)
            if following is not None and lines[following][:1].islower():
                lines[following] = lines[following][0].upper() + lines[following][1:]
    return "\n".join(lines)


def _split_at_titles(cell: nbformat.NotebookNode) -> list[nbformat.NotebookNode]:
    """A markdown cell as cells that each start at a title: a title starts a slide, not its middle."""
    lines = cell.source.split("\n")
    starts = [i for i, line in enumerate(lines) if HEADING.match(line) and "".join(lines[:i]).strip()]
    parts = []
    for begin, end in zip([0, *starts], [*starts, len(lines)]):
        part = nbformat.v4.new_markdown_cell(
            "\n".join(lines[begin:end]).strip("\n"), metadata=copy.deepcopy(cell.metadata)
        )
        part.source = _capitalize_after_title(part.source)
        if begin:
            _start_slide(part)
        parts.append(part)
    return parts


def fit_slides(cells: list[nbformat.NotebookNode], metrics: Metrics = METRICS) -> Fitted:
    """Return d2lbook's slide cells split into slides that each fit a slide's height."""
    fitted = Fitted([])
    expanded: list[nbformat.NotebookNode] = []
    for cell in cells:
        if cell.cell_type == "markdown":
            expanded += _split_at_titles(cell)
            continue
        parts = _split_code(cell, metrics, fitted.left_out)
        if parts and _slide_type(cell) == "slide":
            _start_slide(parts[0])
        expanded += parts
    used = 0.0
    for cell in expanded:
        height = metrics.cell_height(cell)
        if _slide_type(cell) == "slide" or (used and used + height > metrics.budget):
            _start_slide(cell)
            used = 0.0
        used += height
        fitted.cells.append(cell)
    return fitted
