"""Derive one runnable notebook per page, language and framework (``make notebooks``).

``chapters/<lang>/<page>.ipynb`` holds every framework (see ``booktools.sources.frameworks``);
``notebooks/<lang>/<framework>/<page>.ipynb`` holds one: the shared cells and that
framework's cells, without the ``#@tab``/``:begin_tab:`` marks and without d2lbook's
slide marks (``booktools.sources.slide_marks``; ``booktools.slides.decks`` derives with them), with the
measured figures their prose quotes written in (``booktools.sources.measured``), with their stored
outputs, after an install cell that adds ``d2l_lib[<extra>]`` where it is missing
(Colab). These are the notebooks that ``make outputs`` executes, nbval replays,
the Colab buttons open and ``make lab`` shows. They are generated, never edited:
``--check`` (part of ``make test``) fails when they drift from the sources.

Usage::

    python -m booktools notebooks            # write notebooks/   (make notebooks)
    python -m booktools notebooks --check    # fail if it is out of date
"""

from __future__ import annotations

import copy
import re
import sys
from pathlib import Path

import nbformat

from booktools.project import Project
from booktools.sources.frameworks import FRAMEWORKS, Framework, page_frameworks, strip_marks
from booktools.sources.measured import fill_page, quotes_figures
from booktools.sources.slide_marks import strip_slide_marks
from booktools.sources.strings import load_strings

INSTALL_CELL_ID = "install"
INSTALL_CELL = """\
# Where d2l_lib is missing (on Colab, say), install the version this book was built with,
# with the {label} extra. D2L_LIB_SOURCE may name another source (a URL pip understands).
import importlib.util
import os
import subprocess
import sys

if importlib.util.find_spec('d2l_lib') is None:
    source = os.environ.get('D2L_LIB_SOURCE', 'git+{url}@v{version}')
    subprocess.run([sys.executable, '-m', 'pip', 'install', '--quiet', f'd2l_lib[{extra}] @ {{source}}'],
                   check=True)
    importlib.invalidate_caches()  # let this kernel import the package it just installed"""


def library_version(project: Project) -> str:
    """Return ``d2l_lib.__version__`` as ``d2l_lib/__init__.py`` states it."""
    path = project.library_dir / "__init__.py"
    match = re.search(r'^__version__\s*=\s*"([^"]+)"', path.read_text(encoding="utf-8"), flags=re.MULTILINE)
    if not match:
        raise ValueError(f"{project.relative(path)} has no __version__")
    return match.group(1)


def install_cell(framework: Framework, project: Project) -> nbformat.NotebookNode:
    """Return the first cell of a derived notebook: install ``d2l_lib[<extra>]`` if missing."""
    url = project.config().repository.url.rstrip("/")
    source = INSTALL_CELL.format(
        label=framework.label, url=url, version=library_version(project), extra=framework.extra
    )
    cell: nbformat.NotebookNode = nbformat.v4.new_code_cell(source)
    cell["id"] = INSTALL_CELL_ID
    return cell


def derived_path(source: Path, framework: Framework, project: Project) -> Path:
    """Return where the notebook of ``source`` (``chapters/<lang>/<page>.ipynb``) for ``framework`` goes."""
    return project.notebooks_dir / project.language_of(source) / framework.name / source.name


def derive(
    source: Path, framework: Framework, project: Project, slide_marks: bool = False, figures: bool = True
) -> nbformat.NotebookNode:
    """Return the notebook of one framework derived from a source page (with its slide marks if ``slide_marks``).

    The measured figures its prose quotes are written into the markdown from the page's stored
    outputs (``booktools.sources.measured``), unless ``figures`` is false: ``make outputs``
    runs the code before there are figures to quote. The cells keep their outputs, the records
    of figures included (a display of a MIME type Jupyter and Colab do not show).

    Raises:
        booktools.sources.frameworks.TabError: if the source's framework marks are malformed.
        booktools.sources.measured.MeasuredError: for a placeholder that cannot be filled.
    """
    notebook = nbformat.read(source, as_version=4)
    where = project.relative(source)
    marks = page_frameworks(notebook.cells, where)
    if figures and quotes_figures(notebook.cells):
        fill_page(notebook.cells, load_strings(project, project.language_of(source)).numbers, where)
    cells = [install_cell(framework, project)]
    for cell, belongs in zip(notebook.cells, marks):
        if belongs is not None and framework.name not in belongs:
            continue
        kept = copy.deepcopy(cell)
        kept.source = strip_marks(cell)
        if kept.cell_type == "markdown" and not slide_marks:
            kept.source = strip_slide_marks(kept.source)
        cells.append(kept)
    code_cells = [cell for cell in cells if cell.cell_type == "code"]
    for count, cell in enumerate(code_cells, start=1):  # as one run from the top numbers them
        cell.execution_count = count
        for output in cell.outputs:  # a result shared by the frameworks carries this run's count
            if output.output_type == "execute_result":
                output.execution_count = count
    derived: nbformat.NotebookNode = nbformat.v4.new_notebook(cells=cells, metadata=copy.deepcopy(notebook.metadata))
    derived.nbformat_minor = notebook.nbformat_minor
    derived.metadata["d2l"] = {
        "generated_from": project.relative(source),
        "framework": framework.name,
        "note": "Generated by `make notebooks`; edit the source page instead.",
    }
    return derived


def render(notebook: nbformat.NotebookNode) -> str:
    """Return a notebook as ``nbformat.write`` stores it."""
    text: str = nbformat.writes(notebook)
    return text + "\n"


def expected_notebooks(project: Project) -> dict[Path, str]:
    """Return every derived notebook's path and text."""
    files = {}
    for language in project.editions():
        for source in project.source_pages(language):
            for framework in FRAMEWORKS:
                files[derived_path(source, framework, project)] = render(derive(source, framework, project))
    return files


def differences(expected: dict[Path, str], project: Project) -> list[str]:
    """Describe how ``notebooks/`` differs from what the sources give."""
    problems = []
    for path, text in expected.items():
        where = project.relative(path)
        if not path.exists():
            problems.append(f"{where} is missing")
        elif path.read_text(encoding="utf-8") != text:
            problems.append(f"{where} differs from its source page")
    for path in sorted(project.notebooks_dir.rglob("*.ipynb")):
        if path not in expected and ".ipynb_checkpoints" not in path.parts:
            problems.append(f"{project.relative(path)} has no source page")
    return problems


def write(project: Project) -> list[Path]:
    """Write every derived notebook, remove stale ones; return the paths written."""
    expected = expected_notebooks(project)
    for path in project.notebooks_dir.rglob("*.ipynb"):
        if path not in expected:
            path.unlink()
    for path, text in expected.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
    return list(expected)


def run(project: Project, check: bool = False) -> int:
    """``python -m booktools notebooks [--check]``: write the derived notebooks, or say how they drifted."""
    folder = project.relative(project.notebooks_dir)
    try:
        if check:
            problems = differences(expected_notebooks(project), project)
            if problems:
                print(f"{folder}/ and the source pages differ (run `make notebooks`):", file=sys.stderr)
                for problem in problems:
                    print(f"- {problem}", file=sys.stderr)
                return 1
            print(f"{folder}/ matches the source pages")
            return 0
        written = write(project)
    except ValueError as error:  # TabError, MeasuredError, ConfigError, a page _toc.yml names missing
        print(f"make notebooks: {error}", file=sys.stderr)
        return 2
    print(f"wrote {len(written)} notebooks under {folder}/")
    return 0
