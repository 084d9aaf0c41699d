"""Alt text for the figures the book draws from data, in each edition's language.

``show_heatmaps`` (``d2l_lib``, generated from the notebooks) attaches to its
figure a description of the weights it draws, without words, as one more MIME
type of the figure's display data (:data:`HEATMAP_MIME`)::

    {"version": 1, "grid": [1, 1], "queries": 2, "keys": 10,
     "panels": [[[[[1, 2]], [[1, 6]]]]]}

``panels[r][c][q]`` lists, for the panel in grid row ``r`` and column ``c`` and
its query ``q``, the keys that get a non-zero weight, as 1-based inclusive ranges
``[first, last]``. The code of every edition is the same, so the description
cannot carry words: the book build (``booktools.website.edition_copy``) turns it into a
sentence with the edition's templates from ``chapters/<lang>/alt_text.yml``
(``booktools.sources.alt_text``), which is translated like the rest of the edition, and sets
it as the image's alt text (myst-nb's ``mystnb.image.alt``). In English::

    Heatmap of attention weights, 2 queries (rows) over 10 keys (columns):
    query 0 attends to keys 0 and 1; query 1 attends to keys 0 to 5.

Queries and keys are numbered from 0 there, as the figure's axes and the prose count
them. Runs of queries that attend to the same keys are said once ("queries 0 to 2
attend to every key"), and a grid whose panels all look alike is described once.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from booktools.sources.alt_text import HeatmapText
from booktools.sources.mime_types import HEATMAP_MIME

__all__ = ["AltTextError", "HeatmapDescription", "describe_heatmaps", "parse_description", "set_heatmap_alt_text"]

DESCRIPTION_VERSION = 1

KeyRanges = tuple[tuple[int, int], ...]  # 1-based inclusive ranges of keys with a non-zero weight
# The alt text numbers queries and keys from 0, as the figure's axes and the prose count them: the
# description's 1-based query and key numbers are shown less one (grid rows and columns count from 1).
DESCRIPTION_BASE = 1  # the description counts from 1; subtracted, the alt text counts from 0


class AltTextError(ValueError):
    """A page's figure whose alt text cannot be written (naming the page and the cell)."""


@dataclass(frozen=True)
class HeatmapDescription:
    """A figure of ``show_heatmaps``, as its display data describes it."""

    rows: int
    columns: int
    queries: int
    keys: int
    panels: tuple[tuple[tuple[KeyRanges, ...], ...], ...]  # [grid row][grid column][query]

    FIELDS: ClassVar[tuple[str, ...]] = ("version", "grid", "queries", "keys", "panels")


def _positive(value: object, where: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise ValueError(f"{where}: expected a positive integer, got {value!r}")
    return value


def _key_ranges(value: object, keys: int, where: str) -> KeyRanges:
    if not isinstance(value, list):
        raise ValueError(f"{where}: expected a list of [first, last] key ranges, got {value!r}")
    ranges: list[tuple[int, int]] = []
    previous = 0
    for item in value:
        if not (isinstance(item, list) and len(item) == 2):
            raise ValueError(f"{where}: expected [first, last], got {item!r}")
        first, last = (_positive(bound, where) for bound in item)
        if not previous < first <= last <= keys:
            raise ValueError(f"{where}: range {item!r} is not ascending within keys 1–{keys}")
        if ranges and first == previous + 1:
            raise ValueError(f"{where}: ranges {list(ranges[-1])!r} and {item!r} touch; write them as one")
        ranges.append((first, last))
        previous = last
    return tuple(ranges)


def parse_description(data: object) -> HeatmapDescription:
    """Read the :data:`HEATMAP_MIME` data of a figure.

    Raises:
        ValueError: saying what is malformed.
    """
    if not isinstance(data, dict) or set(data) != set(HeatmapDescription.FIELDS):
        raise ValueError(f"expected a mapping with the keys {', '.join(HeatmapDescription.FIELDS)}, got {data!r}")
    if data["version"] != DESCRIPTION_VERSION:
        raise ValueError(f"version {data['version']!r}: booktools reads version {DESCRIPTION_VERSION}")
    grid = data["grid"]
    if not (isinstance(grid, list) and len(grid) == 2):
        raise ValueError(f"grid: expected [rows, columns], got {grid!r}")
    rows, columns = (_positive(size, "grid") for size in grid)
    queries, keys = (
        _positive(data["queries"], "queries"),
        _positive(data["keys"], "keys"),
    )
    panels = data["panels"]
    if not (isinstance(panels, list) and len(panels) == rows and all(isinstance(r, list) for r in panels)):
        raise ValueError(f"panels: expected {rows} rows of panels")
    parsed = []
    for r, row in enumerate(panels, 1):
        if len(row) != columns:
            raise ValueError(f"panels[{r}]: expected {columns} panels, got {len(row)}")
        parsed_row = []
        for c, panel in enumerate(row, 1):
            if not (isinstance(panel, list) and len(panel) == queries):
                raise ValueError(f"panel ({r}, {c}): expected one entry per query ({queries})")
            parsed_row.append(
                tuple(_key_ranges(q, keys, f"panel ({r}, {c}), query {i}") for i, q in enumerate(panel, 1))
            )
        parsed.append(tuple(parsed_row))
    return HeatmapDescription(rows, columns, queries, keys, tuple(parsed))


def _keys_phrase(ranges: KeyRanges, keys: int, text: HeatmapText) -> str:
    if not ranges:
        return text.no_key
    if ranges == ((1, keys),):
        return text.every_key
    phrases = [
        text.key.format(key=first - DESCRIPTION_BASE)
        if first == last
        else (text.two_keys if last == first + 1 else text.keys).format(
            first=first - DESCRIPTION_BASE, last=last - DESCRIPTION_BASE
        )
        for first, last in ranges
    ]
    return text.key_separator.join(phrases)


def _panel_phrase(panel: tuple[KeyRanges, ...], keys: int, text: HeatmapText) -> str:
    """The sentence body of one panel: runs of queries attending to the same keys said once."""
    runs: list[tuple[int, int, KeyRanges]] = []
    for query, ranges in enumerate(panel, 1):
        if runs and runs[-1][2] == ranges:
            runs[-1] = (runs[-1][0], query, ranges)
        else:
            runs.append((query, query, ranges))
    phrases = []
    for first, last, ranges in runs:
        said = _keys_phrase(ranges, keys, text)
        if first == 1 and last == len(panel) and len(panel) > 1:
            phrases.append(text.every_query.format(keys=said))
        elif first == last:
            phrases.append(text.query.format(query=first - DESCRIPTION_BASE, keys=said))
        else:
            phrases.append(text.queries.format(first=first - DESCRIPTION_BASE, last=last - DESCRIPTION_BASE, keys=said))
    return text.query_separator.join(phrases)


def describe_heatmaps(description: HeatmapDescription, text: HeatmapText) -> str:
    """Return the alt text of a ``show_heatmaps`` figure in the language of ``text``."""
    if description.rows == description.columns == 1:
        body = _panel_phrase(description.panels[0][0], description.keys, text)
        return text.single.format(queries=description.queries, keys=description.keys, description=body)
    panels = [panel for row in description.panels for panel in row]
    if all(panel == panels[0] for panel in panels):
        body = text.every_panel.format(description=_panel_phrase(panels[0], description.keys, text))
    else:
        body = " ".join(
            text.panel.format(
                row=r,
                column=c,
                description=_panel_phrase(panel, description.keys, text),
            )
            for r, row in enumerate(description.panels, 1)
            for c, panel in enumerate(row, 1)
        )
    return text.grid.format(
        rows=description.rows,
        columns=description.columns,
        queries=description.queries,
        keys=description.keys,
        description=body,
    )


def set_heatmap_alt_text(notebook: Any, text: HeatmapText | None, where: str) -> None:
    """Give each figure of ``show_heatmaps`` in ``notebook`` its alt text (myst-nb's ``mystnb.image.alt``).

    myst-nb reads image options per cell, so a cell with a described figure may
    hold no other image. The description is removed from the output once said (the
    page's copy is changed, not the source). ``where`` names the page in messages.

    Raises:
        AltTextError: for a cell with several images, a malformed description, or
            a described figure in an edition without templates.
    """
    for index, cell in enumerate(notebook.cells):
        if cell.cell_type != "code":
            continue
        outputs = cell.get("outputs", [])
        described = [output for output in outputs if HEATMAP_MIME in output.get("data", {})]
        if not described:
            continue
        name = f"{where}: cell {cell.get('id', index)}"
        images = [output for output in outputs if any(mime.startswith("image/") for mime in output.get("data", {}))]
        if len(described) != 1 or len(images) != 1:
            raise AltTextError(
                f"{name}: {len(images)} images, {len(described)} of them heatmaps; myst-nb gives the images "
                "of a cell one alt text, so draw one figure per cell"
            )
        if text is None:
            raise AltTextError(f"{name}: a heatmap, but no templates for this edition (its alt_text.yml)")
        try:
            description = parse_description(described[0]["data"][HEATMAP_MIME])
        except ValueError as error:
            raise AltTextError(f"{name}: {HEATMAP_MIME}: {error}") from error
        options = cell.metadata.setdefault("mystnb", {}).setdefault("image", {})
        options["alt"] = describe_heatmaps(description, text)
        # Said now; myst-nb renders every MIME type of an output and warns of one it does not know.
        del described[0]["data"][HEATMAP_MIME]
