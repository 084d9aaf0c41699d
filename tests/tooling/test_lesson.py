"""The chapter page is a lesson a student can follow in one sitting (issue 23).

- ``masked_softmax`` is at most ``MAX_LINES`` lines of code in every framework
  (blank lines, comments and docstrings not counted), and takes the same steps in the
  same order in all three: the same statements, kind by kind;
- the lesson's layers and solutions call the public ``masked_softmax`` and nothing
  private, and the lesson saves nothing: the library is saved from the engineering page.

Its length, within its word cap (``words`` in ``chapters/pages.yml``) in every framework's
tab, is counted on the built page (``booktools.checks.page_words``), by
``tests/book/test_page_words.py``. ``tests/library/test_lesson_equals_library.py`` and
its JAX and TensorFlow twins prove that the lesson's code gives the library's results.
"""

from __future__ import annotations

import ast
import io
import tokenize

import nbformat
import pytest

from booktools.project import Project
from booktools.sources.frameworks import FRAMEWORKS, Framework, strip_marks
from booktools.sources.save_marks import saved_statements

LESSON = Project.here().edition_dir("en") / "attention-scoring-functions.ipynb"
MAX_LINES = 25
SUFFIX = {"pytorch": "", "jax": "-jax", "tensorflow": "-tf"}
LAYER_CELLS = ("dot-product-attention", "additive-attention", "solution-1-code", "solution-2-code")


def lesson_cells() -> list[nbformat.NotebookNode]:
    return nbformat.read(LESSON, as_version=4).cells


def cell(cell_id: str) -> nbformat.NotebookNode:
    return next(c for c in lesson_cells() if c.get("id") == cell_id)


def code_lines(source: str) -> int:
    """Lines holding code: not blank, not only a comment, not part of a docstring."""
    tree = ast.parse(source)
    docstrings = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.ClassDef, ast.Module)) and ast.get_docstring(node) is not None:
            first = node.body[0]
            docstrings.update(range(first.lineno, first.end_lineno + 1))
    lines = set()
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type not in (
            tokenize.COMMENT,
            tokenize.NL,
            tokenize.NEWLINE,
            tokenize.INDENT,
            tokenize.DEDENT,
            tokenize.ENDMARKER,
        ):
            lines.update(range(token.start[0], token.end[0] + 1))
    return len(lines - docstrings)


def masked_softmax_of(framework: Framework) -> ast.FunctionDef:
    tree = ast.parse(strip_marks(cell("masked-softmax" + SUFFIX[framework.name])))
    return next(node for node in tree.body if isinstance(node, ast.FunctionDef) and node.name == "masked_softmax")


@pytest.mark.parametrize("framework", FRAMEWORKS, ids=lambda framework: framework.name)
def test_masked_softmax_is_short(framework: Framework):
    source = strip_marks(cell("masked-softmax" + SUFFIX[framework.name]))
    assert code_lines(source) <= MAX_LINES, (
        f"the lesson's {framework.label} masked_softmax cell has {code_lines(source)} lines of code, "
        f"more than {MAX_LINES}"
    )


def steps(function: ast.FunctionDef) -> list[str]:
    """The kinds of statements of a function, nested bodies included, docstring excluded."""
    body = function.body[1:] if ast.get_docstring(function) is not None else function.body
    kinds = []
    for statement in body:
        kinds.extend(type(node).__name__ for node in ast.walk(statement) if isinstance(node, ast.stmt))
    return kinds


def test_masked_softmax_takes_the_same_steps_in_every_framework():
    found = {framework.label: steps(masked_softmax_of(framework)) for framework in FRAMEWORKS}
    assert len({tuple(kinds) for kinds in found.values()}) == 1, f"the steps differ: {found}"


@pytest.mark.parametrize("framework", FRAMEWORKS, ids=lambda framework: framework.name)
def test_the_lesson_calls_the_public_masked_softmax(framework: Framework):
    for name in LAYER_CELLS:
        cell_id = name + SUFFIX[framework.name]
        tree = ast.parse(strip_marks(cell(cell_id)))
        called = {
            node.func.id for node in ast.walk(tree) if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
        }
        private = sorted(
            {
                node.id
                for node in ast.walk(tree)
                if isinstance(node, ast.Name) and node.id.startswith("_") and not node.id.startswith("__")
            }
            | {
                node.attr
                for node in ast.walk(tree)
                if isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__")
            }
        )
        assert not private, f"cell {cell_id} uses private names: {private}"
        if name in ("dot-product-attention", "additive-attention"):
            assert "masked_softmax" in called, f"cell {cell_id} does not call masked_softmax"


def test_the_lesson_saves_nothing():
    saving = [c.get("id") for c in lesson_cells() if c.cell_type == "code" and saved_statements(c.source)]
    assert not saving, f"the lesson's cells {saving} save into the library; the engineering page saves it"
