"""Turn an edition's source pages into the pages Jupyter Book renders.

A source page holds every framework's cells (``booktools.sources.frameworks``); the
rendered page shows each group of framework cells as tabs. This module writes a
copy of the edition in which the marks are replaced by what the Sphinx side
(``booktools.website.extension.tabs``) groups into tabs:

- a framework code cell loses its ``#@tab`` line and gains the cell tag
  ``d2l-tab-<framework>`` (myst-nb turns it into the class ``tag_d2l-tab-<framework>``);
- a framework markdown cell loses its ``:begin_tab:``/``:end_tab:`` lines and is
  wrapped in a ``{container}`` with the class ``d2l-tab-<framework>``;
- a ``#@tab all`` cell loses its mark and is shown once, outside the tabs;
- a markdown cell (and an ``.md`` page) loses d2lbook's slide marks
  (``booktools.sources.slide_marks``): the reader sees the marked text, never ``[**``
  or ``(**``, and not the text meant for the slides only; a page with slide
  marks gains, after its title, a line linking its decks
  (``booktools.slides.decks``, one per framework);
- the edition gains the generated API page ``api.md`` (``booktools.website.api_page``);
- a markdown cell gets the measured figures it quotes written in, in the edition's
  number format, and a code cell loses its record of figures, an output meant for the
  prose only (``booktools.sources.measured``): myst-nb would warn about its MIME type,
  which fails the strict build, and would show nothing for it;
- a code cell holding a figure of ``show_heatmaps`` gets the figure's alt text in
  the edition's language: ``booktools.website.heatmap_alt_text`` makes the sentence from
  the description the figure carries and the edition's templates; this module sets it.

``book_notebook`` does what one notebook needs alone: the tabs' tags and containers, the
``#@tab all`` cells, the slide marks stripped and the record of figures dropped.
``write_edition_sources`` writes the copy: it fills in the measured figures before
``book_notebook`` drops their record, then adds the slides link, the alt text and the API
page. The copy keeps the repository's layout (``chapters/<code>/`` beside ``img/``), so
relative paths to figures work unchanged.
"""

from __future__ import annotations

import copy
import shutil
from collections.abc import Iterable
from pathlib import Path

import jinja2
import nbformat

from booktools.project import Project, deck_href
from booktools.sources.alt_text import edition_heatmap_text
from booktools.sources.frameworks import FRAMEWORKS, NAMES, TabError, page_frameworks, strip_marks
from booktools.sources.measured import MeasuredError, fill_page, fill_text, mentions_figures, without_figures
from booktools.sources.myst import extensions_of, headings
from booktools.sources.slide_marks import has_slides, strip_slide_marks
from booktools.sources.strings import EditionStrings, load_strings
from booktools.website import api_page
from booktools.website.built_pages import SLIDES_LINK_ID
from booktools.website.heatmap_alt_text import AltTextError, set_heatmap_alt_text

TAB_CLASS = "d2l-tab-{}"
# What a source page can be wrong in, as write_edition_sources reports it
SOURCE_ERRORS = (TabError, MeasuredError, AltTextError)


def book_notebook(notebook: nbformat.NotebookNode, where: str = "page") -> nbformat.NotebookNode:
    """Return a source notebook with its cells in renderable form, the notebook's own part of the copy.

    Each framework code cell loses its ``#@tab`` line and gains its tab tags; each framework markdown cell
    becomes a ``{container}`` of its tab classes; a ``#@tab all`` cell loses its mark; every markdown cell loses
    its slide marks and every code cell its record of figures. The measured figures, the slides link and the alt
    text are :func:`write_edition_sources`' part.

    Raises:
        booktools.sources.frameworks.TabError: naming ``where`` and the cell, if the framework marks are malformed.
    """
    result = copy.deepcopy(notebook)
    for cell, belongs in zip(result.cells, page_frameworks(notebook.cells, where)):
        if cell.cell_type == "markdown":
            cell.source = strip_slide_marks(cell.source)
        else:
            cell.outputs = without_figures(cell.get("outputs", []))
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


# HTML the renderable pages gain (the slides link), from Jinja2 templates in snippets/.
SNIPPETS = jinja2.Environment(
    loader=jinja2.FileSystemLoader(Path(__file__).resolve().parent / "snippets"), autoescape=True
)
SLIDES_LINK = "slides-link.html"


def slides_link_cell(label: str, page: str) -> nbformat.NotebookNode:
    """Return the markdown cell linking a page's decks, one per framework (``booktools.slides.decks``).

    ``label`` is "Slides" in the edition's language.
    """
    decks = [{"href": deck_href(page, framework.name), "framework": framework.label} for framework in FRAMEWORKS]
    html = SNIPPETS.get_template(SLIDES_LINK).render(label=label, decks=decks).strip()
    cell: nbformat.NotebookNode = nbformat.v4.new_markdown_cell(html)
    cell["id"] = SLIDES_LINK_ID
    return cell


def add_slides_link(
    notebook: nbformat.NotebookNode, label: str, page: str, marked: bool, extensions: Iterable[str] | None = None
) -> nbformat.NotebookNode:
    """Insert the link to the page's decks after its title, if the source page had slide marks (``marked``)."""
    titles = [
        i
        for i, cell in enumerate(notebook.cells)
        if cell.cell_type == "markdown" and any(heading.level == 1 for heading in headings(cell.source, extensions))
    ]
    if marked and titles:
        notebook.cells.insert(titles[0] + 1, slides_link_cell(label, page))
    return notebook


def _md_page(path: Path, strings: EditionStrings, project: Project) -> str:
    """The text of an ``.md`` page; it has no code cells, so a ``{measured}`` in it quotes nothing."""
    text = path.read_text(encoding="utf-8")
    if not mentions_figures(text):
        return text
    try:
        return fill_text(text, {}, strings.numbers)
    except MeasuredError as error:
        raise MeasuredError(f"{project.relative(path)}: {error}") from None


def write_edition_sources(source_dir: Path, target_root: Path, project: Project) -> Path:
    """Write the renderable copy of ``source_dir`` (``chapters/<code>``) under ``target_root``.

    Returns the folder to build (``target_root/chapters/<code>``).

    Raises:
        booktools.sources.frameworks.TabError: for malformed framework marks.
        booktools.sources.measured.MeasuredError: for a measured figure that cannot be filled in.
        booktools.website.heatmap_alt_text.AltTextError: for a heatmap whose text alternative cannot be written.
        (``SOURCE_ERRORS`` names the three.)
    """
    shutil.rmtree(target_root, ignore_errors=True)
    target = target_root / project.relative(source_dir)
    target.mkdir(parents=True)
    heatmap_text = edition_heatmap_text(source_dir.name, project)
    strings = load_strings(project, source_dir.name)
    extensions = extensions_of(project)
    # Read here, not pages: the strings go in as settings, the alt text into the heatmaps' cells.
    data_files = {project.strings_file(source_dir.name), project.alt_text_file(source_dir.name)}
    for path in sorted(source_dir.iterdir()):
        if path.suffix == ".ipynb":
            source = nbformat.read(path, as_version=4)
            fill_page(source.cells, strings.numbers, project.relative(path))
            page = book_notebook(source, project.relative(path))
            notebook = add_slides_link(page, strings.slides, path.stem, has_slides(source.cells), extensions)
            set_heatmap_alt_text(notebook, heatmap_text, project.relative(path))
            nbformat.write(notebook, target / path.name)
        elif path.suffix == ".md":
            (target / path.name).write_text(strip_slide_marks(_md_page(path, strings, project)), encoding="utf-8")
        elif path.is_file() and path not in data_files:
            shutil.copy2(path, target / path.name)
    (target / f"{api_page.PAGE}.md").write_text(api_page.page(strings.api), encoding="utf-8")
    for folder in project.shared_folders():
        shutil.copytree(folder, target_root / project.relative(folder))
    return target
