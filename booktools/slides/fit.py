"""Slides that fit a 1280x720 screen: d2lbook's slide notebooks, split where a slide would be too tall.

d2lbook starts a slide at each ``[**`` mark and lets everything up to the next one follow
on the same slide: a long function, its output and the next paragraph, far past the
screen's bottom edge. :func:`fit_slides` estimates the height of every cell from the
sizes in ``booktools.slides.metrics`` (the ones ``slides.css`` sets, beside the decks) and:

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

import copy
import re
from dataclasses import dataclass, field

import nbformat

from booktools.slides.metrics import HEADING, METRICS, Metrics, output_text

ELLIPSIS = "⋮"  # the last line of a printed output shortened to fit (no words: every edition)
TOP_LEVEL = re.compile(r"^[^\s)\]}#]")  # a line that starts a top-level statement
METHOD = re.compile(r"^    (def|async def|@)\b")  # a line that starts a method of a class
DEFINITION = re.compile(r"\s*(?:async\s+)?(def|class)\s+(\w+)")  # what a block of code defines


@dataclass
class Fitted:
    """A deck's cells that fit, and what was left out of it (each a line saying what and why)."""

    cells: list[nbformat.NotebookNode]
    left_out: list[str] = field(default_factory=list)


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
    text = output_text(output)
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
