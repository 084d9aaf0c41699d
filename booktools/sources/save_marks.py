"""d2lbook's ``#@save`` convention: which statements of a code cell go into the library.

- ``#@save`` on a ``def`` or ``class`` line, or on one of its decorators, saves the
  whole definition;
- ``#@save`` on an ``import`` or an assignment saves that statement;
- a ``#@save`` inside a string is no mark; one inside a body, or on any other
  statement, is an error that names the notebook and the cell.

``booktools.derive.library`` builds the library from these blocks, and
``booktools.checks.translations`` compares which statements the editions save.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from dataclasses import dataclass

SAVE_MARK = re.compile(r"#\s*@save\b")


class ExtractionError(Exception):
    """A ``#@save`` cell that cannot be turned into library code."""


@dataclass(frozen=True)
class Section:
    """The section of the book a cell sits in: its title and its MyST label."""

    title: str
    label: str


@dataclass(frozen=True)
class SavedBlock:
    """One saved statement or definition and where it comes from."""

    notebook: str
    cell_id: str
    section: Section
    names: tuple[str, ...]
    code: str
    is_import: bool

    @property
    def origin(self) -> str:
        """The notebook and cell the block comes from, as error messages name them."""
        return f"{self.notebook}, cell {self.cell_id}"


def _save_lines(source: str, where: str) -> list[int]:
    """Line numbers (1-based) of ``#@save`` comments, ignoring strings."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, IndentationError, SyntaxError) as error:
        raise ExtractionError(f"{where}: cannot tokenize a #@save cell: {error}") from error
    return [tok.start[0] for tok in tokens if tok.type == tokenize.COMMENT and SAVE_MARK.match(tok.string)]


def _bound_names(node: ast.stmt) -> tuple[str, ...]:
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return (node.name,)
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return tuple((alias.asname or alias.name).split(".")[0] for alias in node.names)
    if isinstance(node, ast.Assign):
        targets = node.targets
    elif isinstance(node, (ast.AnnAssign, ast.AugAssign)):
        targets = [node.target]
    else:
        return ()
    return tuple(name.id for target in targets for name in ast.walk(target) if isinstance(name, ast.Name))


def _statement_for_mark(module: ast.Module, line: int, where: str) -> tuple[int, int, ast.stmt]:
    """Return (first line, last line, node) of the statement a mark on ``line`` saves."""
    for node in module.body:
        first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
        last = node.end_lineno or node.lineno  # always set by ast.parse
        if not first <= line <= last:
            continue
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            if line > node.lineno:
                raise ExtractionError(
                    f"{where}, line {line}: #@save inside the body of {node.name!r}; "
                    "put it on the def/class line or a decorator to save the whole definition"
                )
            return first, last, node
        if isinstance(node, (ast.Import, ast.ImportFrom, ast.Assign, ast.AnnAssign)):
            return first, last, node
        raise ExtractionError(
            f"{where}, line {line}: #@save marks a {type(node).__name__} statement; "
            "only def/class definitions, imports and assignments can be saved"
        )
    raise ExtractionError(f"{where}, line {line}: #@save is not attached to any statement")


def _strip_marks(code: str) -> str:
    lines = [
        SAVE_MARK.split(line, maxsplit=1)[0].rstrip() if SAVE_MARK.search(line) else line.rstrip()
        for line in code.splitlines()
    ]
    return "\n".join(lines)


def _marked_statements(source: str, where: str) -> list[tuple[int, int, ast.stmt]]:
    """Return (first line, last line, node) of every statement ``source`` saves, in order."""
    try:
        module = ast.parse(source)
    except SyntaxError as error:
        raise ExtractionError(f"{where}: syntax error in a #@save cell, line {error.lineno}: {error.msg}") from error
    chosen: dict[int, tuple[int, int, ast.stmt]] = {}
    for mark in _save_lines(source, where):
        first, last, node = _statement_for_mark(module, mark, where)
        chosen[first] = (first, last, node)
    return sorted(chosen.values(), key=lambda item: item[0])


def blocks_of_cell(source: str, notebook: str, cell_id: str, section: Section) -> list[SavedBlock]:
    """Return the saved blocks of one code cell, in source order.

    Raises:
        ExtractionError: naming the notebook and cell, for a syntax error or a misplaced mark.
    """
    if not SAVE_MARK.search(source):
        return []
    lines = source.splitlines()
    return [
        SavedBlock(
            notebook=notebook,
            cell_id=cell_id,
            section=section,
            names=_bound_names(node),
            code=_strip_marks("\n".join(lines[first - 1 : last])),
            is_import=isinstance(node, (ast.Import, ast.ImportFrom)),
        )
        for first, last, node in _marked_statements(source, f"{notebook}, cell {cell_id}")
    ]


def saved_statements(source: str) -> list[str]:
    """Return the first line of each statement a cell saves (for comparing editions).

    Raises:
        ExtractionError: for a syntax error or a misplaced mark.
    """
    if not SAVE_MARK.search(source):
        return []
    return [ast.unparse(node).split("\n")[0] for _, _, node in _marked_statements(source, "cell")]
