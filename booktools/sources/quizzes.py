"""The self-check quizzes: answer keys, each edition's quiz data, the quiz cells, and how they must agree.

A page's quiz is a ``#@tab all`` code cell with the tag ``d2l-quiz`` that holds one import
and one call, ``show_quiz(<page>, lang=<language>)`` (``d2l_lib.quiz``): no question, answer
or explanation is written in a notebook. They are package data of the library, one file per
edition, ``d2l_lib/quizzes/<language>.json`` (:func:`read_quiz_data`), written in the
edition's language. The answers are also written once, independently of language, in
``chapters/quizzes.yml`` (:class:`QuizKeys`), with the code that computes each numeric
answer. :func:`booktools.sources.quiz_check.check_quizzes` reports every way an edition departs from the keys: a quiz
cell that is not that one call, another question, order, kind, choice or right answer in
its data, a missing question text, choice or explanation.

The translation checker compares an edition's quiz data with English through
:func:`quiz_structure` (what must be the same) and reads its texts through
:func:`quiz_prose` (the text, which must be translated).
"""

from __future__ import annotations

import ast
import dataclasses
import json
from pathlib import Path
from typing import Any

import nbformat

from booktools.configuration.schema import load
from booktools.project import Project
from booktools.sources.frameworks import NAMES

QUIZ_TAG = "d2l-quiz"
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


def read_keys(project: Project) -> dict[str, QuizKey]:
    """Return the validated answer key of every page with a quiz, by page name.

    Raises:
        booktools.configuration.schema.ConfigError: if the file is missing or malformed.
        ValueError: if a numeric question has no code, a choice question has code, or an
            answer has the wrong type.
    """
    path = project.quiz_keys_file
    name = project.relative(path)
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


def data_file(language: str, project: Project) -> Path:
    """The quiz data of edition ``language``: ``d2l_lib/quizzes/<language>.json``."""
    return project.library_data_dir / f"{language}.json"


def read_quiz_data(language: str, project: Project) -> dict[str, list[dict[str, Any]]]:
    """Return the questions of every page in edition ``language``, by page name.

    Raises:
        FileNotFoundError: if the edition has no data file.
        ValueError: if the file is not ``{"language": <language>, "pages": {<page>: [<question>, ...]}}``.
    """
    path = data_file(language, project)
    name = project.relative(path)
    try:
        content = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as error:
        raise ValueError(f"{name}: not valid JSON: {error}") from error
    if not isinstance(content, dict) or set(content) != {"language", "pages"}:
        raise ValueError(f"{name}: expected the keys 'language' and 'pages'")
    if content["language"] != language:
        raise ValueError(f"{name}: language {content['language']!r}, the file is that of {language!r}")
    pages = content["pages"]
    if not isinstance(pages, dict) or not all(
        isinstance(questions, list) and all(isinstance(question, dict) for question in questions)
        for questions in pages.values()
    ):
        raise ValueError(f"{name}: 'pages' maps each page to a list of questions")
    return pages


def parse_quiz_cell(source: str) -> tuple[str, str]:
    """Return (page, language) of a quiz cell: ``from d2l_lib.quiz import show_quiz`` and one call.

    Raises:
        ValueError: if the cell holds anything else, or the call's arguments are not two string literals.
    """
    lines = [line for line in source.split("\n") if not line.startswith("#@tab")]
    try:
        tree = ast.parse("\n".join(lines))
    except SyntaxError as error:
        raise ValueError(f"the quiz cell is not valid Python: {error}") from error
    usage = "a quiz cell is `from d2l_lib.quiz import show_quiz` and one call show_quiz(<page>, lang=<language>)"
    body = tree.body
    if (
        len(body) != 2
        or not isinstance(body[0], ast.ImportFrom)
        or body[0].module != "d2l_lib.quiz"
        or [alias.name for alias in body[0].names] != ["show_quiz"]
        or not isinstance(body[1], ast.Expr)
        or not isinstance(body[1].value, ast.Call)
    ):
        raise ValueError(usage)
    call = body[1].value
    given: dict[str | None, ast.expr] = dict(zip(("page", "lang"), call.args))
    given.update({keyword.arg: keyword.value for keyword in call.keywords})
    if (
        not isinstance(call.func, ast.Name)
        or call.func.id != "show_quiz"
        or len(call.args) + len(call.keywords) != 2
        or set(given) != {"page", "lang"}
    ):
        raise ValueError(usage)
    page, language = (given[name] for name in ("page", "lang"))
    if not isinstance(page, ast.Constant) or not isinstance(language, ast.Constant):
        raise ValueError("show_quiz's page and language must be string literals")
    if not isinstance(page.value, str) or not isinstance(language.value, str):
        raise ValueError("show_quiz's page and language must be string literals")
    return page.value, language.value


def quiz_structure(questions: list[dict[str, Any]]) -> list[Any]:
    """The questions without their text: what every edition must share."""

    def strip(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: strip(v) for k, v in value.items() if k not in TEXT_FIELDS}
        if isinstance(value, list):
            return [strip(item) for item in value]
        return value

    return [strip(question) for question in questions]


def quiz_texts(questions: list[dict[str, Any]]) -> list[tuple[str, Any]]:
    """(where, text) of every text of the quiz, e.g. ``("why-scale, choice b, why", "...")``; ``""`` if missing."""
    found = []
    for question in questions:
        name = question.get("id")
        found.append((f"{name}, question", question.get("question", "")))
        if question.get("kind") == "number" or "why" in question:
            found.append((f"{name}, why", question.get("why", "")))
        for choice in question.get("choices", []):
            for field in ("text", "why"):
                found.append((f"{name}, choice {choice.get('id')}, {field}", choice.get(field, "")))
    return found


def quiz_prose(source: str, project: Project) -> list[tuple[str, str]]:
    """(where, text) of the texts a quiz cell shows, from its edition's data, as the translation checker reads prose.

    ``where`` names the data file, the page and the text, e.g.
    ``d2l_lib/quizzes/ko.json: preliminaries: check-shape, choice a, why``; [] if the cell
    or the data is malformed (``quiz_check.check_quizzes`` reports those).
    """
    try:
        page, language = parse_quiz_cell(source)
        questions = read_quiz_data(language, project).get(page, [])
    except (ValueError, OSError):
        return []
    name = project.relative(data_file(language, project))
    return [(f"{name}: {page}: {where}", text) for where, text in quiz_texts(questions) if isinstance(text, str)]


def quiz_cells(notebook: nbformat.NotebookNode) -> list[nbformat.NotebookNode]:
    return [cell for cell in notebook.cells if QUIZ_TAG in cell.metadata.get("tags", ())]


def check_questions(key: QuizKey, questions: list[dict[str, Any]]) -> list[str]:
    """Describe how one edition's questions of a page depart from the key (empty if they do not)."""
    ids = [question.get("id") for question in questions]
    want = [question.id for question in key.questions]
    if ids != want:
        return [f"questions {ids} differ from the key's {want} (same questions, same order)"]
    problems = []
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
    return problems


def check_cell(key: QuizKey, language: str, source: str) -> list[str]:
    """Describe how one edition's quiz cell departs from ``show_quiz(<key's page>, lang=<language>)``."""
    try:
        page, cell_language = parse_quiz_cell(source)
    except ValueError as error:
        return [str(error)]
    problems = []
    if page != key.page:
        problems.append(f"the cell is the quiz of {page!r}, not {key.page!r}")
    if cell_language != language:
        problems.append(f"the cell's language is {cell_language!r}, the edition's {language!r}")
    return problems
