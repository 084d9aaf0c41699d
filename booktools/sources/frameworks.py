"""The frameworks of the book, and which cells of a source notebook belong to which.

A source page (``chapters/<lang>/<page>.ipynb``) holds the prose once and the code
of every framework beside it, marked as d2lbook marks it:

- a code cell starts with ``#@tab pytorch``, ``#@tab jax``, ``#@tab tensorflow``,
  a comma-separated list of them, or ``#@tab all`` (framework-free code);
- a markdown cell that only makes sense in one framework starts with the line
  ``:begin_tab:`jax``` and ends with the line ``:end_tab:``; any other markdown
  cell is shared.

Consecutive framework cells form a *group*, shown in the book as tabs, in
framework order; every group has cells of every framework.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

TAB_LINE = re.compile(r"^#@tab\s+(?P<names>[\w ,]+?)\s*$")
BEGIN_TAB = re.compile(r"^:begin_tab:`(?P<name>\w+)`\s*$")
END_TAB = ":end_tab:"
ALL = "all"


@dataclass(frozen=True)
class Framework:
    """One framework the book is written in."""

    name: str  # as in ``#@tab`` and the tab's sync id: "pytorch"
    label: str  # as the tab shows it: "PyTorch"
    module: str  # the d2l_lib module: "torch" (``from d2l_lib import torch as d2l``)
    extra: str  # the pip extra that installs it: ``d2l_lib[torch]``


FRAMEWORKS: tuple[Framework, ...] = (
    Framework("pytorch", "PyTorch", "torch", "torch"),
    Framework("jax", "JAX", "jax", "jax"),
    Framework("tensorflow", "TensorFlow", "tensorflow", "tensorflow"),
)
NAMES: tuple[str, ...] = tuple(framework.name for framework in FRAMEWORKS)
DEFAULT = FRAMEWORKS[0]


class TabError(ValueError):
    """A cell whose framework marks are missing or malformed."""


def by_name(name: str) -> Framework:
    """Return the framework called ``name`` (as in ``#@tab``).

    Raises:
        TabError: if there is no such framework.
    """
    for framework in FRAMEWORKS:
        if framework.name == name:
            return framework
    raise TabError(f"unknown framework {name!r}; expected one of {', '.join(NAMES)}")


def _where(cell: Any) -> str:
    return f"cell {cell.get('id', '?')}"


def cell_frameworks(cell: Any) -> frozenset[str] | None:
    """Return the frameworks a cell belongs to, or ``None`` for a shared markdown cell.

    ``#@tab all`` gives every framework.

    Raises:
        TabError: for a code cell without a ``#@tab`` line, an unknown framework, or a
            ``:begin_tab:`` without its closing ``:end_tab:``.
    """
    lines = cell["source"].splitlines()
    first = lines[0] if lines else ""
    if cell["cell_type"] == "code":
        match = TAB_LINE.match(first)
        if not match:
            raise TabError(
                f"{_where(cell)}: a code cell must start with `#@tab <framework>` "
                f"({', '.join(NAMES)} or {ALL}), got {first!r}"
            )
        names = [name.strip() for name in match["names"].split(",") if name.strip()]
        if not names:
            raise TabError(f"{_where(cell)}: #@tab names no framework")
        if names == [ALL]:
            return frozenset(NAMES)
        for name in names:
            try:
                by_name(name)
            except TabError as error:
                raise TabError(f"{_where(cell)}: {error}") from None
        return frozenset(names)
    if cell["cell_type"] == "markdown":
        match = BEGIN_TAB.match(first)
        if not match:
            if any(line.strip().startswith(":begin_tab:") for line in lines):
                raise TabError(f"{_where(cell)}: :begin_tab: must be the cell's first line")
            return None
        if lines[-1].strip() != END_TAB:
            raise TabError(f"{_where(cell)}: a cell opened by :begin_tab: must end with the line {END_TAB}")
        try:
            by_name(match["name"])
        except TabError as error:
            raise TabError(f"{_where(cell)}: {error}") from None
        return frozenset([match["name"]])
    return None


def is_tabbed(cell: Any) -> bool:
    """Whether a cell belongs to some frameworks and not to all (so it sits in a tab group)."""
    found = cell_frameworks(cell)
    return found is not None and found != frozenset(NAMES)


def strip_marks(cell: Any) -> str:
    """Return a cell's source without its ``#@tab`` line or ``:begin_tab:``/``:end_tab:`` lines."""
    lines = cell["source"].splitlines()
    if cell["cell_type"] == "code" and lines and TAB_LINE.match(lines[0]):
        lines = lines[1:]
    elif cell["cell_type"] == "markdown" and lines and BEGIN_TAB.match(lines[0]):
        lines = lines[1:-1]
    return "\n".join(lines).strip("\n")


def groups(cells: list[Any]) -> list[list[int]]:
    """Return the tab groups of a notebook: runs of consecutive tabbed cells, as cell indices.

    Raises:
        TabError: if a group lacks a framework, or its cells are out of framework order.
    """
    found: list[list[int]] = []
    current: list[int] = []
    for index, cell in enumerate([*cells, None]):
        if cell is not None and is_tabbed(cell):
            current.append(index)
            continue
        if current:
            found.append(current)
            current = []
    for group in found:
        order = [min(NAMES.index(name) for name in cell_frameworks(cells[i]) or ()) for i in group]
        first = _where(cells[group[0]])
        if order != sorted(order):
            raise TabError(f"{first}: the cells of a tab group must come in the order {', '.join(NAMES)}")
        covered = set().union(*(cell_frameworks(cells[i]) or set() for i in group))
        missing = [name for name in NAMES if name not in covered]
        if missing:
            raise TabError(f"{first}: the tab group starting here has no cell for {', '.join(missing)}")
    return found


def page_frameworks(cells: list[Any], where: str) -> list[frozenset[str] | None]:
    """Validate a page's marks and tab groups; return each cell's frameworks (see ``cell_frameworks``).

    Raises:
        TabError: naming ``where`` (the page) and the cell.
    """
    try:
        groups(cells)
        return [cell_frameworks(cell) for cell in cells]
    except TabError as error:
        raise TabError(f"{where}, {error}") from None
