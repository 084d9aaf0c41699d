"""Figures measured by a page's code and quoted in its prose: ``{measured}`CELL-ID.NAME:FORMAT```.

A timing changes on every run, every machine and in every edition, so the prose never
states one by hand. The cell that measures ends with ``record_figures(small=..., ...)``,
which displays one output whose only MIME type is ``FIGURES_MIME``
(``booktools.sources.mime_types``), its data a JSON object ``{NAME: number}``;
``make outputs`` stores it with the cell's other outputs.
A markdown cell of the same page quotes a figure as ``{measured}`fused-timing.small:.2f```:
the code cell with id ``fused-timing``, its figure ``small``, formatted with the Python
format spec ``.2f`` and then written with the edition's decimal mark and thousands
separator (``numbers`` in ``chapters/<lang>/strings.yml``, ``booktools.sources.strings``):
``1,234.5`` in English and Korean, ``1.234,5`` in Indonesian.

The figures are read from the stored outputs' data, never from printed text (which is
translated), and written into the markdown wherever prose leaves the source page: the
derived notebooks (``booktools.derive.notebooks``, hence the slides) and the site's
renderable copy (``booktools.website.edition_copy``, hence the PDFs). Markdown inside a
``:begin_tab:`` block quotes only cells of its own frameworks; shared markdown may quote
any cell. A placeholder that is malformed, names a cell the page lacks, a cell that recorded
no figures, or a figure the cell did not record raises :class:`MeasuredError`, naming the
page, the markdown cell and the placeholder.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from booktools.sources.frameworks import page_frameworks
from booktools.sources.mime_types import FIGURES_MIME
from booktools.sources.strings import NumberStrings

__all__ = [
    "MeasuredError",
    "Placeholder",
    "fill_page",
    "fill_text",
    "is_figures_output",
    "mentions_figures",
    "page_figures",
    "placeholders",
    "quotes_figures",
    "recorded_figures",
    "without_figures",
    "without_placeholders",
    "write_number",
]

ROLE = "{measured}"
# A mention of the role, well formed or not: the role, then its content between backticks if it has one.
MENTION = re.compile(re.escape(ROLE) + r"(?:`(?P<content>[^`\n]*)`)?")
CONTENT = re.compile(r"^(?P<cell>[A-Za-z0-9_-]+)\.(?P<name>[a-z][a-z0-9_]*):(?P<spec>\S+)$")
NAME = re.compile(r"^[a-z][a-z0-9_]*$")
SYNTAX = "{measured}`CELL-ID.NAME:FORMAT`"


class MeasuredError(ValueError):
    """A placeholder that cannot be filled, or figures recorded in a malformed output."""


@dataclass(frozen=True)
class Placeholder:
    """One ``{measured}`CELL-ID.NAME:FORMAT``` of a markdown text."""

    text: str  # as written, role and backticks included
    cell: str
    name: str
    spec: str  # a Python format spec: ".2f", ",.0f", ".0%"
    start: int  # where ``text`` starts in the markdown
    end: int

    @property
    def key(self) -> str:
        """What the placeholder quotes: ``CELL-ID.NAME:FORMAT`` (the translation checker compares these)."""
        return f"{self.cell}.{self.name}:{self.spec}"


def _check_spec(spec: str) -> None:
    """Raise ``ValueError`` unless ``spec`` formats a float without the locale (``n`` would use it)."""
    if spec.endswith("n"):
        raise ValueError("format 'n' uses the locale; the edition's number format comes from its strings.yml")
    format(1234.5, spec)


def mentions_figures(text: str) -> bool:
    """Whether a markdown text mentions the role at all (well formed or not)."""
    return ROLE in text


def without_placeholders(text: str, stand_in: str = "0") -> str:
    """Return a markdown text with each mention of the role (well formed or not) replaced by ``stand_in``.

    The translation checker reads prose this way: a cell id such as ``query-key-timing`` is no prose.
    """
    return MENTION.sub(stand_in, text)


def placeholders(text: str) -> list[Placeholder]:
    """Return the placeholders of a markdown text, in order.

    Raises:
        MeasuredError: for a mention of ``{measured}`` that is not ``{measured}`CELL-ID.NAME:FORMAT```
            with a format Python can apply to a number.
    """
    found = []
    for match in MENTION.finditer(text):
        content = match["content"]
        parts = CONTENT.match(content) if content is not None else None
        if parts is None:
            raise MeasuredError(f"{match[0]!r} is malformed; write {SYNTAX}")
        try:
            _check_spec(parts["spec"])
        except ValueError as error:
            raise MeasuredError(f"{match[0]!r}: format {parts['spec']!r} is not a number format ({error})") from None
        found.append(Placeholder(match[0], parts["cell"], parts["name"], parts["spec"], match.start(), match.end()))
    return found


def write_number(value: float, spec: str, numbers: NumberStrings) -> str:
    """Format ``value`` with the Python format ``spec``, in the edition's number format.

    ``write_number(1234.5, ",.1f", NumberStrings(decimal=",", thousands="."))`` is ``"1.234,5"``.
    """
    written = format(value, spec)
    return written.translate(str.maketrans(".,", numbers.decimal + numbers.thousands))


def is_figures_output(output: Mapping[str, Any]) -> bool:
    """Whether a stored output is a record of figures (a display whose only MIME type is ``FIGURES_MIME``)."""
    return output.get("output_type") == "display_data" and list(output.get("data", {})) == [FIGURES_MIME]


def without_figures(outputs: list[Any]) -> list[Any]:
    """A code cell's stored ``outputs`` less its records of figures: what a rendering shows (the site, the slides)."""
    return [output for output in outputs if not is_figures_output(output)]


def recorded_figures(outputs: list[Any], where: str) -> dict[str, float]:
    """Return the figures a code cell's stored ``outputs`` recorded, by name (none: an empty dict).

    Raises:
        MeasuredError: naming ``where`` (page and cell), for data that is not ``{NAME: number}`` or a
            name recorded twice.
    """
    figures: dict[str, float] = {}
    for output in outputs:
        if not is_figures_output(output):
            continue
        data = output["data"][FIGURES_MIME]
        if not isinstance(data, Mapping):
            raise MeasuredError(f"{where}: the {FIGURES_MIME} output is not a JSON object of named numbers")
        for name, value in data.items():
            if not NAME.match(name):
                raise MeasuredError(f"{where}: recorded figure {name!r} is not a name like small or ratio_2")
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise MeasuredError(f"{where}: recorded figure {name!r} is {value!r}, not a number")
            if name in figures:
                raise MeasuredError(f"{where}: figure {name!r} is recorded twice")
            figures[name] = float(value)
    return figures


def page_figures(cells: list[Any], where: str) -> dict[str, dict[str, float]]:
    """Return the figures each code cell of a page recorded, by cell id (every code cell, figures or not).

    Raises:
        MeasuredError: for a malformed record (:func:`recorded_figures`).
    """
    return {
        cell.get("id"): recorded_figures(cell.get("outputs", []), f"{where}, cell {cell.get('id')}")
        for cell in cells
        if cell.get("cell_type") == "code"
    }


def _figure(
    placeholder: Placeholder,
    figures: dict[str, dict[str, float]],
    frameworks: dict[str, frozenset[str] | None],
    quoting: frozenset[str] | None,
) -> float:
    """The figure a placeholder quotes; ``quoting`` are the frameworks of the markdown that quotes it."""
    if placeholder.cell not in figures:
        raise MeasuredError(f"{placeholder.text}: the page has no code cell with id {placeholder.cell!r}")
    recorded = figures[placeholder.cell]
    if not recorded:
        raise MeasuredError(
            f"{placeholder.text}: cell {placeholder.cell!r} recorded no figures "
            f"(its stored outputs have no {FIGURES_MIME} output; run make outputs)"
        )
    if placeholder.name not in recorded:
        raise MeasuredError(
            f"{placeholder.text}: cell {placeholder.cell!r} recorded no figure {placeholder.name!r} "
            f"(it recorded {', '.join(sorted(recorded))})"
        )
    owner = frameworks.get(placeholder.cell)
    if quoting is not None and owner is not None and not quoting <= owner:
        raise MeasuredError(
            f"{placeholder.text}: markdown of {', '.join(sorted(quoting))} quotes cell {placeholder.cell!r}, "
            f"which is {', '.join(sorted(owner))} code"
        )
    value = recorded[placeholder.name]
    if not math.isfinite(value):
        raise MeasuredError(f"{placeholder.text}: the recorded figure is {value}")
    return value


def fill_text(
    text: str,
    figures: dict[str, dict[str, float]],
    numbers: NumberStrings,
    frameworks: dict[str, frozenset[str] | None] | None = None,
    quoting: frozenset[str] | None = None,
) -> str:
    """Return a markdown text with each placeholder replaced by its figure, in the edition's number format.

    ``figures`` are the page's (:func:`page_figures`); ``frameworks`` say which frameworks each
    code cell belongs to and ``quoting`` which the markdown belongs to (``None``: shared).

    Raises:
        MeasuredError: naming the placeholder (the caller adds page and cell).
    """
    pieces, last = [], 0
    for placeholder in placeholders(text):
        value = _figure(placeholder, figures, frameworks or {}, quoting)
        pieces += [text[last : placeholder.start], write_number(value, placeholder.spec, numbers)]
        last = placeholder.end
    return "".join(pieces) + text[last:]


def quotes_figures(cells: list[Any]) -> bool:
    """Whether any markdown cell of a page mentions ``{measured}`` (well formed or not)."""
    return any(cell.get("cell_type") == "markdown" and mentions_figures(cell["source"]) for cell in cells)


def fill_page(cells: list[Any], numbers: NumberStrings, where: str) -> None:
    """Fill the placeholders of a source page's markdown cells in place (the cells keep their framework marks).

    Raises:
        MeasuredError: naming ``where`` (the page), the markdown cell and the placeholder.
        booktools.sources.frameworks.TabError: if the page's framework marks are malformed.
    """
    if not quotes_figures(cells):
        return
    marks = page_frameworks(cells, where)
    figures = page_figures(cells, where)
    frameworks = {cell.get("id"): belongs for cell, belongs in zip(cells, marks) if cell.get("cell_type") == "code"}
    for cell, belongs in zip(cells, marks):
        if cell.get("cell_type") != "markdown" or not mentions_figures(cell["source"]):
            continue
        try:
            cell["source"] = fill_text(cell["source"], figures, numbers, frameworks, belongs)
        except MeasuredError as error:
            raise MeasuredError(f"{where}, cell {cell.get('id')}: {error}") from None
