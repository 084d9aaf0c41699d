"""The style rules of ``chapters/glossary.yml`` (its ``rules``): each rule's examples, and its schema.

Every ``must_fail`` sentence of a rule must be reported, naming the rule; every
``must_pass`` sentence must not. A sentence that starts with ``#`` is a code
comment (a code cell), as is every sentence of a rule for code cells; the others
are markdown. Also here: slide marks around a labelled equation are not prose.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import nbformat
import pytest
import yaml

from booktools.checks.translations.cells import Cell
from booktools.checks.translations.compare import compare_markdown
from booktools.checks.translations.glossary import GlossaryError, StyleRule, load_glossary
from booktools.checks.translations.prose import WORD
from booktools.checks.translations.wording import check_english_left, check_style_rules
from booktools.project import Project
from booktools.sources.quizzes import QUIZ_TAG, data_file, quiz_prose

PROJECT = Project.here()


def _rules() -> dict[str, dict[str, StyleRule]]:
    return load_glossary(PROJECT).rules


def _examples(field: str) -> list[tuple[str, str, str]]:
    return [
        (language, name, sentence)
        for language, rules in _rules().items()
        for name, rule in rules.items()
        for sentence in getattr(rule, field)
    ]


def _cell(rule: StyleRule, sentence: str) -> Cell:
    code = rule.cells == "code" or (rule.cells == "all" and sentence.startswith("#"))
    return Cell(1, "example", "code" if code else "markdown", sentence)


@pytest.mark.parametrize(("language", "name", "sentence"), _examples("must_fail"))
def test_a_sentence_that_breaks_a_rule_is_reported(language: str, name: str, sentence: str) -> None:
    rule = _rules()[language][name]
    problems = check_style_rules(_cell(rule, sentence), {name: rule}, PROJECT)
    assert problems, f"{language} rule {name!r} lets through: {sentence}"
    assert all(problem.startswith(f"style rule {name!r}: ") for problem in problems)


@pytest.mark.parametrize(("language", "name", "sentence"), _examples("must_pass"))
def test_a_sentence_that_keeps_a_rule_passes(language: str, name: str, sentence: str) -> None:
    rule = _rules()[language][name]
    assert check_style_rules(_cell(rule, sentence), {name: rule}, PROJECT) == []


def test_every_edition_has_rules_and_every_rule_a_failing_example() -> None:
    rules = _rules()
    assert {"id", "ko"} <= set(rules)
    assert {"vector-dimension", "plural-reduplication", "dashes", "dashes-in-code"} <= set(rules["id"])
    assert {"vector-dimension", "needless-plural", "dashes"} <= set(rules["ko"])
    assert all(rule.must_fail for language in rules.values() for rule in language.values())


def test_a_rule_for_markdown_leaves_code_comments_alone() -> None:
    rule = _rules()["id"]["dashes"]
    assert check_style_rules(Cell(1, "c", "code", "# jumlah pasangan key-value"), {"dashes": rule}, PROJECT) == []


def test_a_rule_reads_the_quiz_text_of_a_code_cell(tmp_path: Path) -> None:
    """A quiz cell's texts are its edition's quiz data (d2l_lib/quizzes/<lang>.json), read through the cell."""
    rule = _rules()["ko"]["needless-plural"]
    notebook = nbformat.read(PROJECT.edition_dir("ko") / "attention-scoring-functions.ipynb", as_version=4)
    source = next(cell.source for cell in notebook.cells if QUIZ_TAG in cell.metadata.get("tags", ()))
    quiz = Cell(1, "quiz", "code", source, tags=(QUIZ_TAG,))
    assert check_style_rules(quiz, {"needless-plural": rule}, PROJECT) == []
    where, text = quiz_prose(source, PROJECT)[0]
    scratch = Project(tmp_path)
    data = data_file("ko", scratch)
    assert data.relative_to(tmp_path).as_posix() == "d2l_lib/quizzes/ko.json"
    shutil.copytree(PROJECT.library_data_dir, scratch.library_data_dir)
    data.write_text(data.read_text(encoding="utf-8").replace(text, "값들의 " + text, 1), encoding="utf-8")
    problems = check_style_rules(quiz, {"needless-plural": rule}, scratch)
    assert problems and where in problems[0]


# The schema: each new field is validated with the file.


@pytest.fixture
def book(tmp_path: Path) -> Project:
    """A scratch project with the real glossary and configuration."""
    book = Project(tmp_path)
    book.chapters.mkdir()
    shutil.copy(PROJECT.glossary_file, book.glossary_file)
    shutil.copy(PROJECT.config_file, book.config_file)
    return book


def _edit_rule(book: Project, **changes: object) -> None:
    data = yaml.safe_load(book.glossary_file.read_text(encoding="utf-8"))
    data["rules"]["ko"]["dashes"].update(changes)
    data["rules"]["ko"]["dashes"] = {k: v for k, v in data["rules"]["ko"]["dashes"].items() if v is not None}
    book.glossary_file.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"cels": "code"}, "rules.ko.dashes: unknown key 'cels' (did you mean 'cells'?)"),
        ({"cells": "prose"}, "rules.ko.dashes.cells: expected one of all, markdown, code"),
        ({"pattern": "(unclosed"}, "rules.ko.dashes.pattern: expected a regular expression"),
        ({"pattern": None}, "rules.ko.dashes: expected a pattern or banned forms"),
        ({"must_fail": []}, "rules.ko.dashes: expected must_fail"),
        ({"emphasis": "yes"}, "rules.ko.dashes.emphasis: expected true or false"),
        ({"statement": None}, "rules.ko.dashes: missing key 'statement'"),
    ],
)
def test_a_malformed_rule_fails_with_the_file(book: Project, changes: dict[str, object], message: str) -> None:
    _edit_rule(book, **changes)
    with pytest.raises(GlossaryError, match=re.escape(f"chapters/glossary.yml: {message}")):
        load_glossary(book)


def test_rules_for_a_language_that_is_not_an_edition(book: Project) -> None:
    data = yaml.safe_load(book.glossary_file.read_text(encoding="utf-8"))
    data["rules"]["fr"] = data["rules"]["ko"]
    book.glossary_file.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    with pytest.raises(GlossaryError, match=r"rules\.fr: unknown language 'fr'"):
        load_glossary(book)


# Slide marks around a labelled display equation (d2lbook's `(**$$ ... $$**) (label)`).


@pytest.mark.parametrize(
    "marked",
    ["(**$$a = b + c$$**) (eq_sum)", "[**$$a = b + c$$**] (eq_sum)"],
)
def test_slide_marks_around_a_labelled_equation_are_not_prose(marked: str) -> None:
    english = Cell(1, "sum-md", "markdown", f"The sum is\n\n{marked}\n\nwhich is all.")
    translation = Cell(1, "sum-md", "markdown", f"Jumlahnya adalah\n\n{marked}\n\nitu saja.")
    kept = {word.lower() for word in WORD.findall("jumlah")}
    assert check_english_left(english, translation, kept, PROJECT) == []
    assert compare_markdown(english, translation) == []
    moved = Cell(1, "sum-md", "markdown", "Jumlahnya adalah\n\n(**$$a = b + c$$**) (eq_other)\n\nitu saja.")
    assert any("labels" in p or "math blocks" in p for p in compare_markdown(english, moved))
