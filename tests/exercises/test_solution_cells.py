"""The exercises are sphinx-exercise directives and their solutions collapsed blocks that hold their prose
and code cells, in every edition and framework. Between an exercise and its solution come the reader's
cells: a starter to fill in, a check and a hint (``booktools.sources.exercises``); the solution ends
with the same check, on the solution. The lesson's solutions define their classes without saving
them; the engineering page saves the library's versions (with input checks) and the cost model, and holds
the section on the built-in attention functions before its summary."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import nbformat
import pytest

from booktools.derive.library import library_path
from booktools.project import Project
from booktools.sources.exercises import CHECK_TAG, HINT_TAG, STARTER_TAG
from booktools.sources.frameworks import FRAMEWORKS, Framework, cell_frameworks, strip_marks
from booktools.sources.save_marks import saved_statements

PROJECT = Project.here()
relative = PROJECT.relative  # how messages and test ids name a page
CHAPTER = "attention-scoring-functions.ipynb"
PRACTICE = "attention-scoring-in-practice.ipynb"
PATHS = [
    PROJECT.edition_dir(language) / CHAPTER
    for language in PROJECT.editions()
    if (PROJECT.edition_dir(language) / CHAPTER).exists()
]
PRACTICE_PATHS = [PROJECT.edition_dir(language) / PRACTICE for language in PROJECT.editions()]
# sphinx-exercise: each exercise a labelled {exercise}, each solution gated between a
# {solution-start} (collapsed: class dropdown) and a {solution-end} cell, holding its prose and code.
EXERCISE = re.compile(r"\A:::\{exercise\}\n:label: (?P<label>ex-[\w-]+)\n\n.+\n:::\Z", re.DOTALL)
SOLUTION_START = re.compile(r"\A```\{solution-start\} (?P<label>ex-[\w-]+)\n:class: dropdown\n```\Z")
SOLUTION_END = "```{solution-end}\n```"
DEFINED_BY_SOLUTIONS = {
    1: "DistanceAttention",
    2: "BilinearAttention",
    3: "attention_cost",
    4: "masked_softmax_by_adding",
}
EXERCISE_IDS = {1: "distance-attention", 2: "bilinear-attention", 3: "attention-cost", 4: "masked-softmax"}
SAVED_BY_THE_PRACTICE_PAGE = ("DistanceAttention", "BilinearAttention", "attention_cost", "mask_from_valid_lens")


def framework_ids(framework: Framework) -> str:
    return framework.name


def cells(path: Path) -> list[nbformat.NotebookNode]:
    return nbformat.read(path, as_version=4).cells


def exercise_cells(notebook_cells: list[nbformat.NotebookNode], exercise: int) -> list[nbformat.NotebookNode]:
    """The cells after exercise ``exercise`` up to the next exercise (or the references)."""
    cell_ids = [cell.get("id") for cell in notebook_cells]
    start = cell_ids.index(f"exercise-{exercise}-md") + 1
    end = next(
        i for i in range(start, len(cell_ids)) if cell_ids[i] in (f"exercise-{exercise + 1}-md", "references-md")
    )
    return notebook_cells[start:end]


def tagged(cell: nbformat.NotebookNode, tag: str) -> bool:
    return tag in cell.metadata.get("tags", [])


def solution_cells(notebook_cells: list[nbformat.NotebookNode], exercise: int) -> list[nbformat.NotebookNode]:
    """The cells of exercise ``exercise``'s solution, from its {solution-start} on."""
    found = exercise_cells(notebook_cells, exercise)
    return found[next((i for i, cell in enumerate(found) if "{solution-start}" in cell.source), len(found)) :]


def readers_cells(notebook_cells: list[nbformat.NotebookNode], exercise: int) -> list[nbformat.NotebookNode]:
    """The cells between exercise ``exercise`` and its solution: starter, check and hint."""
    found = exercise_cells(notebook_cells, exercise)
    return found[: len(found) - len(solution_cells(notebook_cells, exercise))]


def of_framework(notebook_cells: list[nbformat.NotebookNode], framework: Framework) -> list[nbformat.NotebookNode]:
    """The cells a reader of ``framework`` sees: the shared ones and that framework's."""
    return [cell for cell in notebook_cells if (found := cell_frameworks(cell)) is None or framework.name in found]


@pytest.mark.parametrize("path", PATHS, ids=relative)
@pytest.mark.parametrize("framework", FRAMEWORKS, ids=framework_ids)
@pytest.mark.parametrize("exercise", EXERCISE_IDS)
def test_each_exercise_has_a_collapsed_solution_holding_its_prose_and_code(
    path: Path, framework: Framework, exercise: int
):
    notebook_cells = cells(path)
    exercise_cell = next(cell for cell in notebook_cells if cell.get("id") == f"exercise-{exercise}-md")
    labelled = EXERCISE.match(exercise_cell.source.strip())
    assert labelled, f"{relative(path)}: exercise {exercise} is not a labelled {{exercise}} directive"
    solution = of_framework(solution_cells(notebook_cells, exercise), framework)
    start = SOLUTION_START.match(solution[0].source.strip()) if solution else None
    assert start and start["label"] == labelled["label"], (
        f"{relative(path)}: exercise {exercise}'s cells must start with a collapsed {{solution-start}} of its label"
    )
    assert solution[-1].source.strip() == SOLUTION_END, f"{relative(path)}: solution {exercise} is not closed"
    inside = solution[1:-1]
    assert tagged(inside[-1], CHECK_TAG), f"{relative(path)}: solution {exercise} must end with its check"
    kinds = [cell.cell_type for cell in inside]
    assert kinds[:1] == ["markdown"] and "code" in kinds, (
        f"{relative(path)}: solution {exercise} has no worked solution (prose, then code) in {framework.label}"
    )
    for cell in inside:
        where = f"{relative(path)}, cell {cell.get('id')}"
        assert "{solution-" not in cell.source and ":::{admonition}" not in strip_marks(cell), (
            f"{where}: a solution's prose sits directly in the solution block"
        )
        assert "hide-cell" not in cell.metadata.get("tags", []), (
            f"{where}: the solution block collapses its code; no separate hide-cell toggle"
        )


@pytest.mark.parametrize("path", PATHS, ids=relative)
@pytest.mark.parametrize("framework", FRAMEWORKS, ids=framework_ids)
@pytest.mark.parametrize("exercise", EXERCISE_IDS)
def test_each_exercise_has_a_starter_a_check_and_a_hint(path: Path, framework: Framework, exercise: int):
    """In that order; the starter defines the answer's name and raises NotImplementedError; the check and
    the hint name the exercise and pass the edition's language."""
    mine = of_framework(readers_cells(cells(path), exercise), framework)
    tags = [next(t for t in (STARTER_TAG, CHECK_TAG, HINT_TAG) if tagged(cell, t)) for cell in mine]
    assert tags == [STARTER_TAG, CHECK_TAG, HINT_TAG], f"{relative(path)}: exercise {exercise} has {tags}"
    starter, check, hint = mine
    tree = ast.parse(strip_marks(starter))
    names = [node.name for node in tree.body if isinstance(node, (ast.ClassDef, ast.FunctionDef))]
    assert names == [DEFINED_BY_SOLUTIONS[exercise]]
    assert "raise NotImplementedError" in starter.source
    language = PROJECT.language_of(path)
    name, exercise_id = DEFINED_BY_SOLUTIONS[exercise], EXERCISE_IDS[exercise]
    assert strip_marks(check) == f"d2l.check_exercise('{exercise_id}', {name}, lang='{language}')"
    assert strip_marks(hint) == f"d2l.hint_exercise('{exercise_id}', lang='{language}')"
    assert tagged(hint, "remove-output"), "the page does not give the hint away; running the cell does"
    last = solution_cells(cells(path), exercise)[-2]
    assert strip_marks(last) == strip_marks(check), "the solution ends with the same check"


@pytest.mark.parametrize("path", PATHS, ids=relative)
def test_exercise_labels_are_the_same_in_every_edition(path: Path):
    english = PROJECT.edition_dir("en") / CHAPTER

    def is_exercise(cell: nbformat.NotebookNode) -> bool:
        return re.fullmatch(r"exercise-\d+-md", cell.get("id", "")) is not None

    labels = [EXERCISE.match(c.source.strip()) for c in cells(english) if is_exercise(c)]
    mine = [EXERCISE.match(c.source.strip()) for c in cells(path) if is_exercise(c)]
    assert [m and m["label"] for m in mine] == [m and m["label"] for m in labels]


@pytest.mark.parametrize("path", PATHS, ids=relative)
@pytest.mark.parametrize("framework", FRAMEWORKS, ids=framework_ids)
def test_lesson_solutions_define_their_classes_without_saving(path: Path, framework: Framework):
    notebook_cells = cells(path)
    for exercise, name in DEFINED_BY_SOLUTIONS.items():
        code = [
            cell
            for cell in solution_cells(notebook_cells, exercise)
            if cell.cell_type == "code" and framework.name in cell_frameworks(cell)
        ]
        defined = [
            node.name
            for cell in code
            for node in ast.parse(strip_marks(cell)).body
            if isinstance(node, (ast.ClassDef, ast.FunctionDef))
        ]
        assert name in defined, f"{relative(path)}: no {framework.label} cell of solution {exercise} defines {name}"
        saved = [line for cell in code for line in saved_statements(cell.source)]
        assert not saved, f"{relative(path)}: solution {exercise} saves {saved}; the engineering page saves them"


@pytest.mark.parametrize("path", PRACTICE_PATHS, ids=relative)
@pytest.mark.parametrize("framework", FRAMEWORKS, ids=framework_ids)
def test_the_practice_page_saves_the_library_versions(path: Path, framework: Framework):
    code = [
        cell for cell in cells(path) if cell.cell_type == "code" and framework.name in (cell_frameworks(cell) or ())
    ]
    saved = [line for cell in code for line in saved_statements(cell.source)]
    for name in SAVED_BY_THE_PRACTICE_PAGE:
        assert any(line.startswith(("def ", "class ")) and f" {name}(" in line for line in saved), (
            f"{relative(path)}: no {framework.label} cell saves {name} (#@save)"
        )


@pytest.mark.parametrize("path", PRACTICE_PATHS, ids=relative)
def test_the_builtin_functions_come_before_the_practice_summary(path: Path):
    cell_ids = [cell.get("id") for cell in cells(path)]
    assert "going-further-md" in cell_ids, f"{relative(path)}: no section on the built-in attention functions"
    assert cell_ids.index("going-further-md") < cell_ids.index("practice-summary-md")
    heading = next(
        line for line in cells(path)[cell_ids.index("going-further-md")].source.splitlines() if line.startswith("#")
    )
    assert heading.startswith("## "), f"{relative(path)}: the built-in functions' section needs a level-2 heading"


@pytest.mark.parametrize("framework", FRAMEWORKS, ids=framework_ids)
def test_solution_names_are_in_the_library(framework: Framework):
    path = library_path(framework, PROJECT)
    assert path.exists(), f"{relative(path)} is missing; run `make lib`"
    tree = ast.parse(path.read_text(encoding="utf-8"))
    exported = next(
        ast.literal_eval(node.value)
        for node in tree.body
        if isinstance(node, ast.Assign) and [t.id for t in node.targets] == ["__all__"]
    )
    for name in SAVED_BY_THE_PRACTICE_PAGE:
        assert name in exported, f"{relative(path)} lacks {name}; run `make lib`"
