"""Turn an edition's source pages into the pages Jupyter Book renders.

A source page holds every framework's cells (``booktools.frameworks``); the
rendered page shows each group of framework cells as tabs. This module writes a
copy of the edition in which the marks are replaced by what the Sphinx side
(``booktools.theme.tabs``) groups into tabs:

- a framework code cell loses its ``#@tab`` line and gains the cell tag
  ``d2l-tab-<framework>`` (myst-nb turns it into the class ``tag_d2l-tab-<framework>``);
- a framework markdown cell loses its ``:begin_tab:``/``:end_tab:`` lines and is
  wrapped in a ``{container}`` with the class ``d2l-tab-<framework>``;
- a ``#@tab all`` cell loses its mark and is shown once, outside the tabs;
- a markdown cell (and an ``.md`` page) loses d2lbook's slide marks
  (``booktools.slide_marks``): the reader sees the marked text, never ``[**``
  or ``(**``, and not the text meant for the slides only; a page with slide
  marks gains, after its title, a line linking its decks
  (``booktools.slides``, one per framework);
- the edition gains the generated API page ``api.md`` (``booktools.api_docs``);
- a code cell holding a figure of ``show_heatmaps`` gets the figure's alt text in
  the edition's language, from the description the figure carries
  (``booktools.alt_text``).

The copy keeps the repository's layout (``chapters/<code>/`` beside ``img/``), so
relative paths to figures work unchanged.
"""

from __future__ import annotations

import copy
import shutil
from pathlib import Path

import nbformat

from booktools import api_docs
from booktools.alt_text import edition_heatmap_text, set_heatmap_alt_text
from booktools.frameworks import FRAMEWORKS, NAMES, page_frameworks, strip_marks
from booktools.slide_marks import mark_kinds, strip_slide_marks

TAB_CLASS = "d2l-tab-{}"
SHARED_FOLDERS = ("img",)


def book_notebook(notebook: nbformat.NotebookNode, where: str = "page") -> nbformat.NotebookNode:
    """Return the renderable form of a source notebook (see the module docstring).

    Raises:
        booktools.frameworks.TabError: naming ``where`` and the cell, if the framework marks are malformed.
    """
    result = copy.deepcopy(notebook)
    for cell, belongs in zip(result.cells, page_frameworks(notebook.cells, where)):
        if cell.cell_type == "markdown":
            cell.source = strip_slide_marks(cell.source)
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


SLIDES_LINK_ID = "d2l-slides-link"


def slides_link_cell(language: str, page: str) -> nbformat.NotebookNode:
    """Return the markdown cell linking a page's decks, one per framework (``booktools.slides``)."""
    from booktools.slides import deck_href, label

    links = " · ".join(
        f'<a class="reference external" href="{deck_href(page, framework)}">{framework.label}</a>'
        for framework in FRAMEWORKS
    )
    cell: nbformat.NotebookNode = nbformat.v4.new_markdown_cell(
        f'<p class="d2l-slides-link">{label(language)}: {links}</p>'
    )
    cell["id"] = SLIDES_LINK_ID
    return cell


def has_slides(notebook: nbformat.NotebookNode) -> bool:
    """Whether a source page has slide marks (d2lbook makes slides only of such pages)."""
    return any(cell.cell_type == "markdown" and mark_kinds(cell.source) for cell in notebook.cells)


def add_slides_link(notebook: nbformat.NotebookNode, language: str, page: str, marked: bool) -> nbformat.NotebookNode:
    """Insert the link to the page's decks after its title, if the source page had slide marks (``marked``)."""
    titles = [
        i for i, cell in enumerate(notebook.cells) if cell.cell_type == "markdown" and "\n# " in f"\n{cell.source}"
    ]
    if marked and titles:
        notebook.cells.insert(titles[0] + 1, slides_link_cell(language, page))
    return notebook


def write_edition_sources(source_dir: Path, target_root: Path, root: Path) -> Path:
    """Write the renderable copy of ``source_dir`` (``chapters/<code>``) under ``target_root``.

    Returns the folder to build (``target_root/chapters/<code>``).
    """
    shutil.rmtree(target_root, ignore_errors=True)
    target = target_root / source_dir.relative_to(root)
    target.mkdir(parents=True)
    heatmap_text = edition_heatmap_text(source_dir.name, root)
    for path in sorted(source_dir.iterdir()):
        if path.suffix == ".ipynb":
            source = nbformat.read(path, as_version=4)
            notebook = add_slides_link(
                book_notebook(source, path.relative_to(root).as_posix()), source_dir.name, path.stem, has_slides(source)
            )
            set_heatmap_alt_text(notebook, heatmap_text, path.relative_to(root).as_posix())
            nbformat.write(notebook, target / path.name)
        elif path.suffix == ".md":
            (target / path.name).write_text(strip_slide_marks(path.read_text(encoding="utf-8")), encoding="utf-8")
        elif path.is_file():
            shutil.copy2(path, target / path.name)
    (target / f"{api_docs.PAGE}.md").write_text(api_docs.page(source_dir.name), encoding="utf-8")
    for name in SHARED_FOLDERS:
        if (root / name).is_dir():
            shutil.copytree(root / name, target_root / name)
    return target
