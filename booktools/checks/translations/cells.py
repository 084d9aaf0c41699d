"""The cells of a page, and which cell of a translation is the translation of which English cell.

Cells are matched by id. A translation that lacks a cell, has one English does not
have, or has them in another order is reported with the cell's number and id.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import nbformat


@dataclass(frozen=True)
class Cell:
    """One cell of a page; an ``.md`` page is a single markdown cell without an id."""

    number: int
    id: str | None
    kind: str
    source: str
    tags: tuple[str, ...] = ()
    outputs: tuple[dict[str, Any], ...] = ()


def read_cells(path: Path) -> list[Cell]:
    """Return the cells of a notebook, or an ``.md`` page as one markdown cell."""
    if path.suffix == ".md":
        return [Cell(1, None, "markdown", path.read_text(encoding="utf-8"))]
    notebook = nbformat.read(path, as_version=4)
    return [
        Cell(
            number,
            cell.get("id"),
            cell.cell_type,
            cell.source,
            tuple(cell.metadata.get("tags", ())),
            tuple(cell.get("outputs", ())),
        )
        for number, cell in enumerate(notebook.cells, start=1)
    ]


def where(path: str, cell: Cell) -> str:
    """How a problem names a cell: ``<file>, cell <number> (id <id>)``, or the file of an ``.md`` page."""
    return path if cell.id is None and path.endswith(".md") else f"{path}, cell {cell.number} (id {cell.id})"


def pair_cells(path: str, english: list[Cell], translation: list[Cell]) -> tuple[list[str], list[tuple[Cell, Cell]]]:
    """Match the cells of a page with their English originals; report missing, extra and moved cells."""
    ids_en, ids_tr = [c.id for c in english], [c.id for c in translation]
    if len(english) == len(translation) and sorted(map(str, ids_en)) != sorted(map(str, ids_tr)):
        problems = [
            f"{where(path, b)}: id differs from English cell {a.number} (id {a.id})"
            for a, b in zip(english, translation)
            if a.id != b.id
        ]
        return problems, list(zip(english, translation))
    problems = (
        [] if len(english) == len(translation) else [f"{path}: {len(translation)} cells, English has {len(english)}"]
    )
    problems += [
        f"{where(path, c)}: missing from the translation (numbered as in English)"
        for c in english
        if c.id not in ids_tr
    ]
    problems += [
        f"{where(path, c)}: not in English (no English cell has this id)" for c in translation if c.id not in ids_en
    ]
    common_en = [i for i in ids_en if i in ids_tr]
    common_tr = [i for i in ids_tr if i in ids_en]
    blocks = difflib.SequenceMatcher(None, common_en, common_tr, autojunk=False).get_matching_blocks()
    in_order = {i for block in blocks for i in common_en[block.a : block.a + block.size]}
    problems += [
        f"{where(path, cell)}: out of order; it is English cell {ids_en.index(cell.id) + 1}"
        for cell in translation
        if cell.id in ids_en and cell.id not in in_order
    ]
    by_id = {c.id: c for c in translation}
    return problems, [(c, by_id[c.id]) for c in english if c.id in by_id]
