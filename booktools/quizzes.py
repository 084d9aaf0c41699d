"""The self-check quizzes: answer keys, the quiz cells of each edition, and how they must agree.

A page's quiz is a ``#@tab all`` code cell with the tag ``d2l-quiz`` whose code is one call,
``show_quiz(<page>, <language>, [<question>, ...])`` (``d2l_lib.quiz``), the questions
written as Python literals in the edition's language. The answers are also written once,
independently of language, in ``chapters/quizzes.yml`` (:class:`QuizKeys`), with
the code that computes each numeric answer. :func:`check_quizzes` reports every way an
edition's quiz cell departs from its key: another question, order, kind, choice or right
answer, a missing explanation.

The translation checker compares a quiz cell with English through :func:`quiz_structure`
(what must be the same) and :func:`quiz_prose` (the text, which must be translated).
"""

from __future__ import annotations

import ast
import dataclasses
from pathlib import Path
from typing import Any

import nbformat

from booktools.book import ROOT, editions, relative
from booktools.frameworks import NAMES
from booktools.schema import load

QUIZ_TAG = "d2l-quiz"
KEY_FILE = Path("chapters") / "quizzes.yml"
TEXT_FIELDS = ("question", "text", "why")  # translated; everything else is structure


def _check_code(code: dict[str, str]) -> dict[str, str]:
    if set(code) != {"all"} and set(code) != set(NAMES):
        raise ValueError(f"either the key 'all' or one key per framework ({', '.join(NAMES)})")
    return code


@dataclasses.dataclass(frozen=True)
class KeyQuestion:
    """One question of an answer key: a choice question's right choice, or a number and its code."""

    id: str
    kind: str = dataclasses.field(metadata={"check": lambda kind: _one_of(kind, ("choice", "number"))})
    answer: Any
    tolerance: float = 0.0
    code: dict[str, str] = dataclasses.field(default_factory=dict, metadata={"check": lambda c: c and _check_code(c)})


def _one_of(value: str, allowed: tuple[str, ...]) -> str:
    if value not in allowed:
        raise ValueError(f"one of {', '.join(allowed)}")
    return value


@dataclasses.dataclass(frozen=True)
class QuizKey:
    """The answers of one page's quiz, in every edition."""

    page: str
    questions: tuple[KeyQuestion, ...]


@dataclasses.dataclass(frozen=True)
class QuizKeys:
    """``chapters/quizzes.yml``: for each page with a quiz, its questions in order."""

    pages: dict[str, tuple[KeyQuestion, ...]]


def read_keys(root: Path = ROOT) -> dict[str, QuizKey]:
    """Return the validated answer key of every page with a quiz, by page name.

    Raises:
        booktools.schema.ConfigError: if the file is missing or malformed.
        ValueError: if a numeric question has no code, a choice question has code, or an
            answer has the wrong type.
    """
    path = root / KEY_FILE
    name = relative(path, root)
    keys = load(path, QuizKeys, name)
    for page, questions in keys.pages.items():
        for question in questions:
            where = f"{name}: pages.{page}: {question.id}"
            if (question.kind == "number") != bool(question.code):
                raise ValueError(f"{where}: code goes with numeric questions, and only with them")
            if question.kind == "choice" and not isinstance(question.answer, str):
                raise ValueError(f"{where}: the answer of a choice question is a choice id")
            if question.kind == "number" and not isinstance(question.answer, (int, float)):
                raise ValueError(f"{where}: the answer of a numeric question is a number")
        ids = [question.id for question in questions]
        if len(set(ids)) != len(ids):
            raise ValueError(f"{name}: pages.{page}: a question id is used twice")
    return {page: QuizKey(page, questions) for page, questions in keys.pages.items()}


def parse_quiz_cell(source: str) -> tuple[str, str, list[dict[str, Any]]]:
    """Return (page, language, questions) of a quiz cell's ``show_quiz(...)`` call.

    Raises:
        ValueError: if the cell has no such call with literal arguments.
    """
    lines = [line for line in source.split("\n") if not line.startswith("#@tab")]
    try:
        tree = ast.parse("\n".join(lines))
    except SyntaxError as error:
        raise ValueError(f"the quiz cell is not valid Python: {error}") from error
    calls = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "show_quiz"
    ]
    if len(calls) != 1 or len(calls[0].args) != 3 or calls[0].keywords:
        raise ValueError("a quiz cell calls show_quiz(page, language, questions) once")
    try:
        page, language, questions = (ast.literal_eval(argument) for argument in calls[0].args)
    except ValueError as error:
        raise ValueError("show_quiz's arguments must be literals") from error
    return page, language, questions


def quiz_structure(questions: list[dict[str, Any]]) -> list[Any]:
    """The questions without their text: what every edition must share."""

    def strip(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: strip(v) for k, v in value.items() if k not in TEXT_FIELDS}
        if isinstance(value, list):
            return [strip(item) for item in value]
        return value

    return [strip(question) for question in questions]


def quiz_texts(questions: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """(where, text) of every text of the quiz, e.g. ``("why-scale, choice b, why", "...")``."""
    found = []
    for question in questions:
        for field in ("question", "why"):
            if field in question:
                found.append((f"{question['id']}, {field}", question[field]))
        for choice in question.get("choices", []):
            for field in ("text", "why"):
                found.append((f"{question['id']}, choice {choice['id']}, {field}", choice.get(field, "")))
    return found


def quiz_prose(source: str) -> list[tuple[int, str]]:
    """(line, text) of the texts of a quiz cell, as the translation checker reads prose; [] if malformed."""
    try:
        _, _, questions = parse_quiz_cell(source)
    except ValueError:
        return []
    lines = source.split("\n")
    result = []
    for _, text in quiz_texts(questions):
        line = next((number for number, line in enumerate(lines, start=1) if text[:40] in line), 1)
        result.append((line, text))
    return result


def quiz_cells(notebook: nbformat.NotebookNode) -> list[nbformat.NotebookNode]:
    return [cell for cell in notebook.cells if QUIZ_TAG in cell.metadata.get("tags", ())]


def check_cell(key: QuizKey, language: str, source: str) -> list[str]:
    """Describe how one edition's quiz cell departs from the key (empty if it does not)."""
    try:
        page, cell_language, questions = parse_quiz_cell(source)
    except ValueError as error:
        return [str(error)]
    problems = []
    if page != key.page:
        problems.append(f"the cell is the quiz of {page!r}, not {key.page!r}")
    if cell_language != language:
        problems.append(f"the cell's language is {cell_language!r}, the edition's {language!r}")
    ids = [question.get("id") for question in questions]
    want = [question.id for question in key.questions]
    if ids != want:
        return [*problems, f"questions {ids} differ from the key's {want} (same questions, same order)"]
    for question, expected in zip(questions, key.questions):
        name = question["id"]
        if question.get("kind") != expected.kind:
            problems.append(f"{name}: kind {question.get('kind')!r}, the key says {expected.kind!r}")
        if question.get("answer") != expected.answer:
            problems.append(f"{name}: answer {question.get('answer')!r}, the key says {expected.answer!r}")
        if expected.kind == "number" and float(question.get("tolerance", -1)) != expected.tolerance:
            problems.append(f"{name}: tolerance {question.get('tolerance')!r}, the key says {expected.tolerance!r}")
        if expected.kind == "choice":
            choices = question.get("choices", [])
            if len(choices) < 2:
                problems.append(f"{name}: a choice question needs at least two choices")
            if expected.answer not in [choice.get("id") for choice in choices]:
                problems.append(f"{name}: no choice has the key's answer {expected.answer!r}")
        for where, text in quiz_texts([question]):
            if not isinstance(text, str) or not text.strip():
                problems.append(f"{where}: missing")
        if expected.kind == "number" and not str(question.get("why", "")).strip():
            problems.append(f"{name}, why: missing")
    return problems


def check_quizzes(root: Path = ROOT) -> list[str]:
    """Check every edition's quiz cells against the answer keys; return the problems, one line each.

    Every page with a key has exactly one quiz cell in every edition (raises
    ``ConfigError`` or ``ValueError`` if the keys themselves are malformed, see :func:`read_keys`).
    """
    problems = []
    for key in read_keys(root).values():
        for language in editions(root):
            page = root / "chapters" / language / f"{key.page}.ipynb"
            if not page.exists():
                problems.append(f"{relative(root / KEY_FILE, root)}: no page {relative(page, root)}")
                continue
            cells = quiz_cells(nbformat.read(page, as_version=4))
            if len(cells) != 1:
                problems.append(f"{relative(page, root)}: {len(cells)} quiz cells (tag {QUIZ_TAG}); one expected")
                continue
            problems += [
                f"{relative(page, root)}, cell {cells[0].get('id')}: {problem}"
                for problem in check_cell(key, language, cells[0].source)
            ]
    return problems
