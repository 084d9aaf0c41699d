"""The exercise solutions are collapsed in every edition, and "Going Further" precedes the summary."""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest

from booktools.book import ROOT, editions

CHAPTER = "attention-scoring-functions.ipynb"
PATHS = [ROOT / "chapters" / language / CHAPTER for language in editions()
         if (ROOT / "chapters" / language / CHAPTER).exists()]
DROPDOWN = re.compile(r"\A:::\{admonition\} .+\n:class: dropdown\n.*\n:::\Z", re.DOTALL)
SAVED_BY_SOLUTIONS = {"solution-1-code": "DistanceAttention", "solution-2-code": "BilinearAttention",
                      "solution-3-code": "attention_cost"}


def ids(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def cells(path: Path):
    return nbformat.read(path, as_version=4).cells


def solution_cells(notebook_cells, exercise: int):
    """The cells between exercise ``exercise`` and the next exercise (or the references)."""
    cell_ids = [cell.get("id") for cell in notebook_cells]
    start = cell_ids.index(f"exercise-{exercise}-md") + 1
    end = next(i for i in range(start, len(cell_ids))
               if cell_ids[i] in (f"exercise-{exercise + 1}-md", "references-md"))
    return notebook_cells[start:end]


@pytest.mark.parametrize("path", PATHS, ids=ids)
@pytest.mark.parametrize("exercise", [1, 2, 3])
def test_each_exercise_has_a_collapsed_solution(path: Path, exercise: int):
    solution = solution_cells(cells(path), exercise)
    kinds = [cell.cell_type for cell in solution]
    assert kinds[:1] == ["markdown"] and "code" in kinds, f"{ids(path)}: exercise {exercise} has no worked solution"
    for cell in solution:
        where = f"{ids(path)}, cell {cell.get('id')}"
        if cell.cell_type == "markdown":
            assert DROPDOWN.match(cell.source.strip()), f"{where}: prose of a solution goes in a dropdown admonition"
        else:
            assert "hide-cell" in cell.metadata.get("tags", []), f"{where}: solution code must be tagged hide-cell"
            assert cell.execution_count is not None, f"{where}: never executed; run `make outputs`"


@pytest.mark.parametrize("path", PATHS, ids=ids)
def test_solutions_save_their_reusable_pieces(path: Path):
    by_id = {cell.get("id"): cell for cell in cells(path)}
    for cell_id, name in SAVED_BY_SOLUTIONS.items():
        assert cell_id in by_id, f"{ids(path)}: no cell {cell_id}"
        first_line = next(line for line in by_id[cell_id].source.splitlines() if line.startswith(("def", "class")))
        assert f" {name}(" in first_line and "#@save" in first_line, f"{ids(path)}, {cell_id}: {name} is not saved"


@pytest.mark.parametrize("path", PATHS, ids=ids)
def test_going_further_comes_before_the_summary(path: Path):
    cell_ids = [cell.get("id") for cell in cells(path)]
    assert "going-further-md" in cell_ids, f"{ids(path)}: no Going Further section"
    assert cell_ids.index("going-further-md") < cell_ids.index("summary-md")
    heading = cells(path)[cell_ids.index("going-further-md")].source.splitlines()[0]
    assert heading.startswith("## "), f"{ids(path)}: Going Further must open with a level-2 heading"


def test_solution_names_are_in_the_library():
    from d2l_lib import torch as d2l

    for name in (*SAVED_BY_SOLUTIONS.values(), "mask_from_valid_lens"):
        assert callable(getattr(d2l, name, None)), f"d2l_lib lacks {name}; run `make lib`"
