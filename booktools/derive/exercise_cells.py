"""A derived notebook's exercises as an assignment: the student's release and nbgrader's source.

A lesson page marks its code exercises with cell tags and ids (the conventions of
the Exercises section): a starter cell the reader fills in (tag ``d2l-starter``), a
check cell (``d2l-check``, id ``exercise-<n>-check``) calling
``d2l.check_exercise('<id>', <Name>, lang=...)``, a hint cell (``d2l-hint``), then the
collapsed solution, every cell from ``solution-<n>-start`` to ``solution-<n>-end``.

:func:`release` is the student's notebook: every solution removed, the outputs of the
exercise cells cleared, everything else as in the book. :func:`source` is the
instructor's, in nbgrader's convention: where the starter was, the solution's code
cells that define the answer (found with ``ast``: the name the check passes) and those
they use, each between ``### BEGIN SOLUTION`` and ``### END SOLUTION`` and marked as an
autograded answer; each check cell an autograder test (``assert d2l.check_exercise(...)``,
one point, locked); the rest of each solution (prose, demos, its own check) removed.
"""

from __future__ import annotations

import ast
import copy
import re
from dataclasses import dataclass
from typing import Any

import nbformat

from booktools.sources.exercises import CHECK_TAG, HINT_TAG, STARTER_TAG

EXERCISE_TAGS = (STARTER_TAG, CHECK_TAG, HINT_TAG)
EXERCISE_CELL = re.compile(r"^exercise-(\d+)-")
SOLUTION_START = re.compile(r"^solution-(\d+)-start$")
BEGIN_SOLUTION = "### BEGIN SOLUTION"
END_SOLUTION = "### END SOLUTION"
CHECK_FUNCTION = "check_exercise"
# nbgrader's cell metadata (schema version 3, as nbgrader 0.9 writes and validates it).
SCHEMA_VERSION = 3
POINTS = 1


class AssignmentError(ValueError):
    """A page whose exercise cells do not follow the conventions an assignment is made from."""


@dataclass(frozen=True)
class Exercise:
    """One code exercise of a page: its number, its id, the name of the answer, and where its cells are."""

    number: str
    exercise: str  # the id the check passes, e.g. ``masked-softmax``
    answer: str  # the name the reader defines, e.g. ``masked_softmax``
    starters: tuple[int, ...]
    check: int


def tags(cell: nbformat.NotebookNode) -> list[str]:
    """The tags of a cell."""
    found: list[str] = cell.get("metadata", {}).get("tags", [])
    return found


def has_exercises(notebook: nbformat.NotebookNode) -> bool:
    """Whether a notebook has exercise cells (a starter cell)."""
    return any(STARTER_TAG in tags(cell) for cell in notebook.cells)


def solution_spans(notebook: nbformat.NotebookNode) -> dict[str, range]:
    """The cells of each solution, by exercise number: ``solution-<n>-start`` to ``solution-<n>-end``.

    Raises:
        AssignmentError: if a solution has no end.
    """
    spans: dict[str, range] = {}
    ids = [cell.get("id", "") for cell in notebook.cells]
    for start, cell_id in enumerate(ids):
        match = SOLUTION_START.match(cell_id)
        if not match:
            continue
        number = match.group(1)
        end_id = f"solution-{number}-end"
        if end_id not in ids[start:]:
            raise AssignmentError(f"cell {cell_id} has no {end_id} after it")
        spans[number] = range(start, ids.index(end_id, start) + 1)
    return spans


def check_call(cell: nbformat.NotebookNode) -> tuple[str, str]:
    """The exercise id and the answer's name a check cell passes to ``check_exercise``.

    Raises:
        AssignmentError: if the cell is not one ``check_exercise('<id>', <Name>, ...)`` call.
    """
    try:
        body = ast.parse(cell.source).body
    except SyntaxError as error:
        raise AssignmentError(f"check cell {cell.get('id')} does not parse: {error}") from error
    call = body[0].value if len(body) == 1 and isinstance(body[0], ast.Expr) else None
    if (
        isinstance(call, ast.Call)
        and (getattr(call.func, "attr", None) or getattr(call.func, "id", None)) == CHECK_FUNCTION
        and len(call.args) >= 2
        and isinstance(call.args[0], ast.Constant)
        and isinstance(call.args[0].value, str)
        and isinstance(call.args[1], ast.Name)
    ):
        return call.args[0].value, call.args[1].id
    raise AssignmentError(f"check cell {cell.get('id')} is not one {CHECK_FUNCTION}('<id>', <Name>, ...) call")


def exercises(notebook: nbformat.NotebookNode) -> list[Exercise]:
    """The code exercises of a notebook (those with a starter), in order.

    Raises:
        AssignmentError: if an exercise with a starter has no check cell ``exercise-<n>-check``.
    """
    found = []
    cells = notebook.cells
    numbers = dict.fromkeys(
        match.group(1)
        for cell in cells
        if STARTER_TAG in tags(cell) and (match := EXERCISE_CELL.match(cell.get("id", "")))
    )
    for number in numbers:
        starters = tuple(
            index
            for index, cell in enumerate(cells)
            if STARTER_TAG in tags(cell) and cell.get("id", "").startswith(f"exercise-{number}-")
        )
        check_id = f"exercise-{number}-check"
        checks = [index for index, cell in enumerate(cells) if cell.get("id") == check_id]
        if not checks:
            raise AssignmentError(f"exercise {number} has a starter but no check cell {check_id}")
        exercise, answer = check_call(cells[checks[0]])
        found.append(Exercise(number, exercise, answer, starters, checks[0]))
    return found


def _defines(source: str) -> set[str]:
    """The names a cell's top-level statements bind."""
    names: set[str] = set()
    for node in ast.parse(source).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names |= {name.id for target in targets for name in ast.walk(target) if isinstance(name, ast.Name)}
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names |= {(alias.asname or alias.name).split(".")[0] for alias in node.names}
    return names


def _uses(source: str) -> set[str]:
    """The names a cell reads and binds nowhere (so not a method's parameters or local variables)."""
    nodes = list(ast.walk(ast.parse(source)))
    bound = {node.arg for node in nodes if isinstance(node, ast.arg)}
    bound |= {node.id for node in nodes if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load)}
    return {node.id for node in nodes if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)} - bound


def answer_cells(notebook: nbformat.NotebookNode, span: range, answer: str) -> list[int]:
    """The solution's code cells that define ``answer``, and those whose names they use, in order.

    Raises:
        AssignmentError: if no code cell of the solution defines ``answer``.
    """
    code = {index: notebook.cells[index].source for index in span if notebook.cells[index].cell_type == "code"}
    chosen = {index for index, source in code.items() if answer in _defines(source)}
    if not chosen:
        raise AssignmentError(f"no code cell of solution {notebook.cells[span[0]].get('id')} defines {answer}")
    wanted = set().union(*(_uses(code[index]) for index in chosen))
    while True:  # the cells that define what the chosen cells use, and so on
        more = {index for index, source in code.items() if index not in chosen and _defines(source) & wanted}
        if not more:
            return sorted(chosen)
        chosen |= more
        wanted |= set().union(*(_uses(code[index]) for index in more))


def nbgrader_metadata(grade_id: str, *, solution: bool) -> dict[str, Any]:
    """nbgrader's metadata of an autograded answer cell (``solution``) or an autograder test cell."""
    if solution:
        return {
            "solution": True,
            "grade": False,
            "task": False,
            "locked": False,
            "grade_id": grade_id,
            "schema_version": SCHEMA_VERSION,
        }
    return {
        "solution": False,
        "grade": True,
        "task": False,
        "locked": True,
        "points": POINTS,
        "grade_id": grade_id,
        "schema_version": SCHEMA_VERSION,
    }


def _cleared(cell: nbformat.NotebookNode) -> nbformat.NotebookNode:
    cell = copy.deepcopy(cell)
    if cell.cell_type == "code":
        cell.outputs, cell.execution_count = [], None
    return cell


def release(notebook: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """The student's notebook: every solution removed, the exercise cells' outputs cleared."""
    dropped = {index for span in solution_spans(notebook).values() for index in span}
    result = copy.deepcopy(notebook)
    result.cells = [
        _cleared(cell) if set(tags(cell)) & set(EXERCISE_TAGS) else copy.deepcopy(cell)
        for index, cell in enumerate(notebook.cells)
        if index not in dropped
    ]
    return result


def _solution_cell(cell: nbformat.NotebookNode, grade_id: str) -> nbformat.NotebookNode:
    cell = _cleared(cell)
    cell.source = f"{BEGIN_SOLUTION}\n{cell.source.strip()}\n{END_SOLUTION}"
    cell.metadata["nbgrader"] = nbgrader_metadata(grade_id, solution=True)
    return cell


def _test_cell(cell: nbformat.NotebookNode, grade_id: str) -> nbformat.NotebookNode:
    cell = _cleared(cell)
    cell.source = f"assert {cell.source.strip().rstrip(';')}"
    cell.metadata["nbgrader"] = nbgrader_metadata(grade_id, solution=False)
    return cell


def source(notebook: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """The instructor's notebook for nbgrader: solutions in the starters' place, checks as autograder tests.

    Raises:
        AssignmentError: if an exercise's cells break the conventions (no check, no solution,
            no solution cell defining the answer).
    """
    spans = solution_spans(notebook)
    replaced: dict[int, list[nbformat.NotebookNode]] = {}
    for exercise in exercises(notebook):
        if exercise.number not in spans:
            raise AssignmentError(f"exercise {exercise.number} ({exercise.exercise}) has no solution-*-start cell")
        cells = answer_cells(notebook, spans[exercise.number], exercise.answer)
        ids = [f"{exercise.exercise}-solution"] + [
            f"{exercise.exercise}-solution-{k}" for k in range(2, len(cells) + 1)
        ]
        replaced[exercise.starters[0]] = [_solution_cell(notebook.cells[i], id_) for i, id_ in zip(cells, ids)]
        replaced |= {index: [] for index in exercise.starters[1:]}
        replaced[exercise.check] = [_test_cell(notebook.cells[exercise.check], f"{exercise.exercise}-check")]
    dropped = {index for span in spans.values() for index in span}
    result = copy.deepcopy(notebook)
    result.cells = []
    for index, cell in enumerate(notebook.cells):
        if index in replaced:
            result.cells += replaced[index]
        elif index not in dropped:
            result.cells.append(_cleared(cell) if set(tags(cell)) & set(EXERCISE_TAGS) else copy.deepcopy(cell))
    return result
