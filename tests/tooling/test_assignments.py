"""``make assignment``: the chapter's exercises as assignments (``booktools.derive.assignments``).

The verb runs on a scratch copy of the book (``--root``). The structure of every
edition's and framework's release and source notebook is checked against the derived
notebook it came from; nbgrader 0.9.6 itself (installed beside, not into, the book's
environment: its server extension would load into ``make lab`` and ``make serve``)
validates the source notebooks' metadata and clears their solutions, which must give
the release notebooks' cells. Then, in each framework (English), the release notebook
runs top to bottom on the ``d2l-book`` kernel with the starters, every check reporting
failure without raising, and the source notebook runs with the solutions, every
``assert`` holding. A small notebook built here covers what the chapter does not: a
solution whose answer uses a helper cell, a demo cell that must go, broken conventions.
"""

from __future__ import annotations

import ast
import dataclasses
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import nbformat
import pytest
from filelock import FileLock
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from booktools import __main__ as entry
from booktools.derive import notebooks as derive
from booktools.derive.exercise_cells import (
    BEGIN_SOLUTION,
    END_SOLUTION,
    AssignmentError,
    exercises,
    nbgrader_metadata,
    release,
    source,
)
from booktools.derive.outputs import execute
from booktools.project import Project
from booktools.sources.exercises import CHECK_TAG, HINT_TAG, STARTER_TAG
from booktools.sources.frameworks import FRAMEWORKS, Framework
from booktools.sources.strings import load_strings

PROJECT = Project.here()
COPIED = ("_config.yml", "_toc.yml", "chapters", "d2l_lib", "notebooks")
EXERCISE_TAGS = {STARTER_TAG, CHECK_TAG, HINT_TAG}
NBGRADER = ("nbgrader==0.9.6", "rapidfuzz==3.14.6")  # nbgrader's modules that ClearSolutions imports need both
INSTALL = PROJECT.root / "tools" / "pip_install.py"
CHAPTER = "attention-scoring-functions.ipynb"
CASES = [(language, framework) for language in PROJECT.editions() for framework in FRAMEWORKS]


def case_id(case: tuple[str, Framework]) -> str:
    return f"{case[0]}-{case[1].name}"


def copy_book(folder: Path) -> Project:
    """A scratch copy of what ``make assignment`` reads."""
    for name in COPIED:
        path = PROJECT.root / name
        if path.is_dir():
            shutil.copytree(path, folder / name, ignore=shutil.ignore_patterns("__pycache__", ".ipynb_checkpoints"))
        else:
            shutil.copy2(path, folder / name)
    return Project(folder)


@pytest.fixture(scope="module")
def book(tmp_path_factory: pytest.TempPathFactory) -> Project:
    """A scratch copy of the book on which ``python -m booktools assignment`` has run."""
    project = copy_book(tmp_path_factory.mktemp("assignments"))
    assert entry.main(["--root", str(project.root), "assignment"]) == 0
    return project


def derived(project: Project, language: str, framework: Framework) -> Path:
    return derive.derived_path(project.edition_dir(language) / CHAPTER, framework, project)


def written(project: Project, language: str, framework: Framework, version: str) -> nbformat.NotebookNode:
    path = project.assignment_dir(language, framework.name, version) / derived(project, language, framework).name
    assert path.exists(), f"{project.relative(path)} was not written"
    return nbformat.read(path, as_version=4)


def is_exercise_cell(cell: nbformat.NotebookNode) -> bool:
    return bool(EXERCISE_TAGS & set(cell.metadata.get("tags", [])))


# The notebooks the chapter gives ------------------------------------------------------------------


@pytest.mark.parametrize(("language", "framework"), CASES, ids=[case_id(case) for case in CASES])
def test_the_release_drops_every_solution_and_clears_the_exercise_cells(
    book: Project, language: str, framework: Framework
) -> None:
    book_notebook = nbformat.read(derived(book, language, framework), as_version=4)
    student = written(book, language, framework, "release")
    kept = [cell for cell in book_notebook.cells if not cell.id.startswith("solution-")]
    assert [cell.id for cell in student.cells] == [cell.id for cell in kept]
    assert len(kept) < len(book_notebook.cells), "the chapter has solutions"
    found = exercises(book_notebook)
    assert [exercise.exercise for exercise in found] == [
        "distance-attention",
        "bilinear-attention",
        "attention-cost",
        "masked-softmax",
    ]
    for mine, theirs in zip(student.cells, kept):
        if is_exercise_cell(theirs):
            assert (mine.source, mine.metadata) == (theirs.source, theirs.metadata), mine.id
            assert mine.outputs == [] and mine.execution_count is None, mine.id
        else:
            assert mine == theirs, f"{mine.id} differs from the book"
    tags = {tag for cell in student.cells for tag in cell.metadata.get("tags", [])}
    assert EXERCISE_TAGS <= tags
    assert not any("nbgrader" in cell.metadata or BEGIN_SOLUTION in cell.source for cell in student.cells)


@pytest.mark.parametrize(("language", "framework"), CASES, ids=[case_id(case) for case in CASES])
def test_the_source_has_each_solution_between_nbgrader_s_markers_and_each_check_as_a_test(
    book: Project, language: str, framework: Framework
) -> None:
    book_notebook = nbformat.read(derived(book, language, framework), as_version=4)
    instructor = written(book, language, framework, "source")
    by_grade_id = {
        cell.metadata["nbgrader"]["grade_id"]: cell for cell in instructor.cells if "nbgrader" in cell.metadata
    }
    for exercise in exercises(book_notebook):
        answer = by_grade_id[f"{exercise.exercise}-solution"]
        assert answer.metadata["nbgrader"] == {
            "solution": True,
            "grade": False,
            "task": False,
            "locked": False,
            "grade_id": f"{exercise.exercise}-solution",
            "schema_version": 3,
        }
        lines = answer.source.splitlines()
        assert (lines[0], lines[-1]) == (BEGIN_SOLUTION, END_SOLUTION)
        defined = {
            node.name
            for node in ast.parse("\n".join(lines[1:-1])).body
            if isinstance(node, (ast.ClassDef, ast.FunctionDef))
        }
        assert exercise.answer in defined
        test = by_grade_id[f"{exercise.exercise}-check"]
        assert test.source == f"assert {book_notebook.cells[exercise.check].source.strip()}"
        assert test.metadata["nbgrader"] == {
            "solution": False,
            "grade": True,
            "task": False,
            "locked": True,
            "points": 1,
            "grade_id": f"{exercise.exercise}-check",
            "schema_version": 3,
        }
        assert instructor.cells.index(answer) < instructor.cells.index(test)
    assert not any(STARTER_TAG in cell.metadata.get("tags", []) for cell in instructor.cells)
    leftovers = [
        cell.id for cell in instructor.cells if cell.id.startswith("solution-") and "nbgrader" not in cell.metadata
    ]
    assert leftovers == [], "prose and demos of the solutions must go"
    assert all(cell.outputs == [] for cell in instructor.cells if is_exercise_cell(cell) or "nbgrader" in cell.metadata)


@pytest.mark.parametrize("language", PROJECT.editions())
def test_every_edition_has_the_instructor_s_readme_in_its_language(book: Project, language: str) -> None:
    text = book.assignment_readme(language).read_text(encoding="utf-8")
    strings = load_strings(book, language).assignment
    assert text.startswith(f"# {strings.title}\n")
    for field in dataclasses.fields(strings):
        if field.name not in ("honesty", "no_pages"):
            assert getattr(strings, field.name).strip() in text, field.name
    for name in ("DistanceAttention", "BilinearAttention", "attention_cost", "masked_softmax"):
        assert f"`d2l.{name}`" in text
    for framework in FRAMEWORKS:
        for version in ("release", "source"):
            assert f"`{framework.name}/{version}/attention-scoring-functions.ipynb`" in text
    if language != "en":
        assert strings.title != load_strings(book, "en").assignment.title


def test_a_missing_readme_string_fails_the_verb_naming_file_and_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = copy_book(tmp_path)
    path = project.strings_file("ko")
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    path.write_text("".join(line for line in lines if not line.startswith("  no_pages: ")), encoding="utf-8")
    assert entry.main(["--root", str(project.root), "assignment"]) == 1
    assert "chapters/ko/strings.yml: assignment: missing key 'no_pages'" in capsys.readouterr().err


# nbgrader itself ----------------------------------------------------------------------------------

NBGRADER_SCRIPT = """
import json, sys
import nbformat
from nbgrader.nbgraderformat import MetadataValidator
from nbgrader.preprocessors import ClearSolutions
everything = []
for path in sys.argv[1:]:
    notebook = nbformat.read(path, as_version=4)
    MetadataValidator().validate_nb(notebook)
    notebook, _ = ClearSolutions().preprocess(notebook, {})
    cells = [{"id": c.get("id"), "source": c.source, "nbgrader": c.metadata.get("nbgrader")} for c in notebook.cells]
    everything.append(cells)
print(json.dumps(everything))
"""


@pytest.fixture(scope="module")
def nbgrader_path() -> Path:
    """nbgrader, pinned, in a folder of its own under ``_build/`` (put on ``PYTHONPATH`` of a subprocess)."""
    folder = PROJECT.work_dir(f"nbgrader-{NBGRADER[0].split('==')[1]}")
    folder.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(str(folder) + ".lock"):
        if not (folder / "nbgrader" / "__init__.py").exists():
            shutil.rmtree(folder, ignore_errors=True)
            command = [sys.executable, str(INSTALL), "--quiet", "--no-deps", "--target", str(folder), *NBGRADER]
            subprocess.run(command, check=True, capture_output=True, text=True)
    return folder


@pytest.fixture(scope="module")
def cleared_by_nbgrader(book: Project, nbgrader_path: Path) -> dict[str, list[dict[str, Any]]]:
    """Each framework's English source notebook, validated and with its solutions cleared by nbgrader."""
    paths = [str(book.assignment_dir("en", framework.name, "source") / CHAPTER) for framework in FRAMEWORKS]
    environment = {**os.environ, "PYTHONPATH": str(nbgrader_path)}
    result = subprocess.run(
        [sys.executable, "-c", NBGRADER_SCRIPT, *paths], capture_output=True, text=True, env=environment, check=False
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return dict(zip((framework.name for framework in FRAMEWORKS), json.loads(result.stdout)))


@pytest.mark.parametrize("framework", FRAMEWORKS, ids=lambda framework: framework.name)
def test_nbgrader_validates_the_source_and_clearing_it_gives_the_release(
    book: Project, cleared_by_nbgrader: dict[str, list[dict[str, Any]]], framework: Framework
) -> None:
    cleared = cleared_by_nbgrader[framework.name]
    student = written(book, "en", framework, "release")
    plain = [(cell.id, cell.source) for cell in student.cells if STARTER_TAG not in cell.metadata.get("tags", [])]
    plain = [(id_, source) for id_, source in plain if not source.startswith("d2l.check_exercise(")]
    assert [(cell["id"], cell["source"]) for cell in cleared if cell["nbgrader"] is None] == plain
    answers = [cell for cell in cleared if cell["nbgrader"] and cell["nbgrader"]["solution"]]
    assert len(answers) == 4
    assert all(cell["source"] == "# YOUR CODE HERE\nraise NotImplementedError()" for cell in answers)
    checks = [cell["source"] for cell in cleared if cell["nbgrader"] and cell["nbgrader"]["grade"]]
    releases = [cell.source for cell in student.cells if cell.source.startswith("d2l.check_exercise(")]
    assert checks == [f"assert {check}" for check in releases] and len(checks) == 4


# Running them --------------------------------------------------------------------------------------


def check_results(notebook: nbformat.NotebookNode) -> dict[str, str]:
    """What each check cell of a run notebook returned (its ``text/plain``), by cell id."""
    return {
        cell.id: "".join(output.get("data", {}).get("text/plain", "") for output in cell.outputs)
        for cell in notebook.cells
        if CHECK_TAG in cell.metadata.get("tags", [])
    }


@pytest.mark.parametrize("framework", FRAMEWORKS, ids=lambda framework: framework.name)
def test_the_release_runs_top_to_bottom_with_the_starters_and_every_check_reports_failing(
    book: Project, framework: Framework, tmp_path: Path
) -> None:
    notebook = execute(written(book, "en", framework, "release"), tmp_path)
    results = check_results(notebook)
    assert len(results) == 4
    assert all("passed=False" in result for result in results.values()), results
    assert not [
        cell.id for cell in notebook.cells for output in cell.get("outputs", []) if output.output_type == "error"
    ]


@pytest.mark.parametrize("framework", FRAMEWORKS, ids=lambda framework: framework.name)
def test_the_source_runs_with_the_solutions_and_every_check_passes(
    book: Project, framework: Framework, tmp_path: Path
) -> None:
    notebook = written(book, "en", framework, "source")
    tests = [cell for cell in notebook.cells if cell.metadata.get("nbgrader", {}).get("grade")]
    assert len(tests) == 4 and all(cell.source.startswith("assert d2l.check_exercise(") for cell in tests)
    execute(notebook, tmp_path)  # raises CellExecutionError on the first assert that fails


# A page built here ----------------------------------------------------------------------------------


def page(starter: bool = True, end: bool = True, call: str = "d2l.check_exercise('masked-softmax', masked_softmax)"):
    """A page with one code exercise whose answer uses a helper cell, and one discussion exercise."""
    cells = [
        new_code_cell("from d2l_lib import torch as d2l", id="setup"),
        new_markdown_cell(":::{exercise}\n:label: ex-1\n\nDiscuss.\n:::", id="exercise-1-md"),
        new_markdown_cell("```{solution-start} ex-1\n```", id="solution-1-start"),
        new_markdown_cell("An answer in words.", id="solution-1-md"),
        new_markdown_cell("```{solution-end}\n```", id="solution-1-end"),
        new_markdown_cell(":::{exercise}\n:label: ex-2\n\nWrite it.\n:::", id="exercise-2-md"),
        new_code_cell(
            'def masked_softmax(X, valid_lens):\n    """Stub."""\n    raise NotImplementedError',
            id="exercise-2-starter",
            metadata={"tags": [STARTER_TAG]} if starter else {},
            outputs=[nbformat.v4.new_output("stream", text="old\n")],
        ),
        new_code_cell(call, id="exercise-2-check", metadata={"tags": [CHECK_TAG]}),
        new_code_cell("d2l.hint_exercise('masked-softmax')", id="exercise-2-hint", metadata={"tags": [HINT_TAG]}),
        new_markdown_cell("```{solution-start} ex-2\n```", id="solution-2-start"),
        new_code_cell(
            "def _library(X, valid_lens):\n    return d2l.masked_softmax(X, valid_lens)", id="solution-2-helper"
        ),
        new_code_cell("def masked_softmax(X, valid_lens):\n    return _library(X, valid_lens)", id="solution-2-code"),
        new_code_cell("X = 'a demo that the answer does not use'\nprint(X)", id="solution-2-demo"),
        new_code_cell(call, id="solution-2-check", metadata={"tags": [CHECK_TAG]}),
    ]
    if end:
        cells.append(new_markdown_cell("```{solution-end}\n```", id="solution-2-end"))
    cells.append(new_markdown_cell("The end.", id="end-md"))
    return new_notebook(cells=cells)


def test_the_source_keeps_the_cells_the_answer_uses_and_drops_the_demos() -> None:
    instructor = source(page())
    assert [cell.id for cell in instructor.cells] == [
        "setup",
        "exercise-1-md",
        "exercise-2-md",
        "solution-2-helper",
        "solution-2-code",
        "exercise-2-check",
        "exercise-2-hint",
        "end-md",
    ]
    assert instructor.cells[3].metadata["nbgrader"] == nbgrader_metadata("masked-softmax-solution", solution=True)
    assert instructor.cells[4].metadata["nbgrader"]["grade_id"] == "masked-softmax-solution-2"
    assert [cell.id for cell in release(page()).cells] == [
        "setup",
        "exercise-1-md",
        "exercise-2-md",
        "exercise-2-starter",
        "exercise-2-check",
        "exercise-2-hint",
        "end-md",
    ]
    assert release(page()).cells[3].outputs == []


@pytest.mark.parametrize(
    ("notebook", "message"),
    [
        (page(end=False), "solution-2-start has no solution-2-end"),
        (page(call="print(masked_softmax)"), "is not one check_exercise"),
        (page(call="d2l.check_exercise('masked-softmax', 'masked_softmax')"), "is not one check_exercise"),
    ],
    ids=["no-end", "no-check-call", "answer-not-a-name"],
)
def test_a_page_that_breaks_the_conventions_is_refused_with_the_cell_named(
    notebook: nbformat.NotebookNode, message: str
) -> None:
    with pytest.raises(AssignmentError, match=message):
        source(notebook)


def test_a_solution_without_the_answer_is_refused() -> None:
    notebook = page()
    notebook.cells = [cell for cell in notebook.cells if cell.id != "solution-2-code"]
    with pytest.raises(AssignmentError, match="no code cell of solution solution-2-start defines masked_softmax"):
        source(notebook)
