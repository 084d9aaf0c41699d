"""What of a page goes to d2lbook for the slides, and what comes back from it (``booktools.slides.decks``).

Before d2lbook (:func:`lecture_cells`): the cells up to the exercises, less the Colab install
cell, the code the book hides, the quiz and the records of measured figures (their prose has the
figures written in, ``booktools.sources.measured``); a marked heading's ``#`` inside its mark, so the
heading stays the slide's title; a placeholder output in every code cell without one, so that
d2lbook does not merge it into the next cell. After d2lbook (:func:`fit_slide_notebook`): the
placeholders removed, and the slides split to fit the screen (``booktools.slides.fit``).
"""

from __future__ import annotations

from pathlib import Path

import nbformat

from booktools.derive.notebooks import INSTALL_CELL_ID
from booktools.slides.fit import fit_slides
from booktools.sources.measured import without_figures
from booktools.sources.quizzes import QUIZ_TAG
from booktools.sources.slide_marks import titles_inside_marks

# The cell that starts the exercises (same id in every edition): the slides end before it.
EXERCISES_CELL_ID = "exercises-md"
HIDDEN_TAGS = {"hide-input", "hide-cell"}
# Cells whose outputs differ from run to run: the timings. A slide shows their results, not the
# code that times (booktools.slides.fit leaves out the source of a cell marked remove_source).
TIMING_TAG = "nbval-ignore-output"
# d2lbook merges each code cell without outputs into the next code cell; this placeholder output
# keeps every cell apart, with its own tags (fit_decks removes it).
APART = "application/vnd.d2l.slides-apart"


def lecture_cells(cells: list[nbformat.NotebookNode]) -> list[nbformat.NotebookNode]:
    """Return the cells that go to d2lbook: up to the exercises, less the install cell, hidden code and quiz.

    Code cells lose their records of measured figures, which the prose already quotes.

    The quiz cell's source is one call, but d2lbook would show its output, every question
    with its answer key and explanations. Timing cells show their results only, and every
    code cell is kept apart from the next (:data:`APART`).
    """
    kept = []
    for cell in cells:
        if cell.get("id") == EXERCISES_CELL_ID:
            break
        tags = set(cell.metadata.get("tags", []))
        hidden = cell.cell_type == "code" and (HIDDEN_TAGS & tags or QUIZ_TAG in tags)
        if cell.get("id") == INSTALL_CELL_ID or hidden:
            continue
        if cell.cell_type == "markdown":
            cell.source = titles_inside_marks(cell.source)
        if cell.cell_type == "code" and TIMING_TAG in tags:
            cell.metadata["transient"] = {"remove_source": True}
        if cell.cell_type == "code":  # nbconvert would warn about its MIME type and show nothing
            cell.outputs = without_figures(cell.get("outputs", []))
        if cell.cell_type == "code" and not cell.get("outputs"):
            cell.outputs = [nbformat.v4.new_output("display_data", data={APART: ""})]
        kept.append(cell)
    return kept


def fit_slide_notebook(path: Path) -> list[str]:
    """Make the slide notebook at ``path`` (d2lbook's) fit a 1280x720 screen (``booktools.slides.fit``).

    Removes the placeholder outputs first (:data:`APART`). Returns what was left out of the
    deck, as lines saying what and why.
    """
    notebook = nbformat.read(path, as_version=4)
    for cell in notebook.cells:
        if cell.cell_type == "code":
            cell.outputs = [output for output in cell.outputs if APART not in output.get("data", {})]
    fitted = fit_slides(notebook.cells)
    notebook.cells = fitted.cells
    nbformat.write(notebook, path)
    return fitted.left_out
