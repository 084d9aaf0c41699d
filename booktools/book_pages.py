"""Turn an edition's source pages into the pages Jupyter Book renders.

A source page holds every framework's cells (``booktools.frameworks``); the
rendered page shows each group of framework cells as tabs. This module writes a
copy of the edition in which the marks are replaced by what the Sphinx side
(``booktools.theme.tabs``) groups into tabs:

- a framework code cell loses its ``#@tab`` line and gains the cell tag
  ``d2l-tab-<framework>`` (myst-nb turns it into the class ``tag_d2l-tab-<framework>``);
- a framework markdown cell loses its ``:begin_tab:``/``:end_tab:`` lines and is
  wrapped in a ``{container}`` with the class ``d2l-tab-<framework>``;
- a ``#@tab all`` cell loses its mark and is shown once, outside the tabs.

The copy keeps the repository's layout (``chapters/<code>/`` beside ``img/``), so
relative paths to figures work unchanged.
"""

from __future__ import annotations

import copy
import shutil
from pathlib import Path

import nbformat

from booktools.frameworks import NAMES, page_frameworks, strip_marks

TAB_CLASS = "d2l-tab-{}"
SHARED_FOLDERS = ("img",)


def book_notebook(notebook: nbformat.NotebookNode, where: str = "page") -> nbformat.NotebookNode:
    """Return the renderable form of a source notebook (see the module docstring).

    Raises:
        booktools.frameworks.TabError: naming ``where`` and the cell, if the framework marks are malformed.
    """
    result = copy.deepcopy(notebook)
    for cell, belongs in zip(result.cells, page_frameworks(notebook.cells, where)):
        if belongs is None:
            continue
        text = strip_marks(cell)
        if belongs == frozenset(NAMES):
            cell.source = text
        elif cell.cell_type == "code":
            cell.source = text
            tags = cell.metadata.setdefault("tags", [])
            tags += [TAB_CLASS.format(name) for name in NAMES if name in belongs]
        else:
            fence = ":" * (max([4] + [len(line) - len(line.lstrip(":")) + 1 for line in text.splitlines()]))
            classes = " ".join(TAB_CLASS.format(name) for name in NAMES if name in belongs)
            cell.source = f"{fence}{{container}} {classes}\n{text}\n{fence}"
    return result


def write_edition_sources(source_dir: Path, target_root: Path, root: Path) -> Path:
    """Write the renderable copy of ``source_dir`` (``chapters/<code>``) under ``target_root``.

    Returns the folder to build (``target_root/chapters/<code>``).
    """
    shutil.rmtree(target_root, ignore_errors=True)
    target = target_root / source_dir.relative_to(root)
    target.mkdir(parents=True)
    for path in sorted(source_dir.iterdir()):
        if path.suffix == ".ipynb":
            notebook = book_notebook(nbformat.read(path, as_version=4), path.relative_to(root).as_posix())
            nbformat.write(notebook, target / path.name)
        elif path.is_file():
            shutil.copy2(path, target / path.name)
    for name in SHARED_FOLDERS:
        if (root / name).is_dir():
            shutil.copytree(root / name, target_root / name)
    return target
