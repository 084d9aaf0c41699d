"""The quizzes' answer keys (``chapters/quizzes.yml``) and each edition's quiz cell.

Every edition's quiz has the key's questions in the key's order, with its right answers,
and an explanation for every choice; a right answer changed in one edition, a missing
explanation or a question dropped fails. The translation checker compares a quiz cell
with English without its texts and reads its texts as prose. The quiz's HTML is the same
on every run, and accessible: a label for every control, a live region per question.
"""

from __future__ import annotations

import copy
import re
import shutil
from pathlib import Path

import nbformat
import pytest

from booktools.book import ROOT, editions, notebooks
from booktools.quizzes import KEY_FILE, QUIZ_TAG, check_cell, check_quizzes, parse_quiz_cell, quiz_cells, read_keys
from booktools.schema import ConfigError
from booktools.translations.cells import Cell
from booktools.translations.compare import check_english_left
from booktools.translations.quiz import compare_quiz
from d2l_lib.quiz import show_quiz

KEYS = read_keys()


def quiz_source(language: str, page: str) -> str:
    return quiz_cells(nbformat.read(ROOT / "chapters" / language / f"{page}.ipynb", as_version=4))[0].source


def cell(source: str) -> Cell:
    return Cell(1, "quiz", "code", source, (QUIZ_TAG, "remove-input"))


def test_every_edition_matches_the_key():
    assert check_quizzes() == []


def test_every_content_page_has_a_quiz_of_five_to_eight_questions():
    pages = {path.stem for path in notebooks()}
    assert set(KEYS) == pages
    for key in KEYS.values():
        assert 5 <= len(key.questions) <= 8
        kinds = {question.kind for question in key.questions}
        assert kinds == {"choice", "number"}, f"{key.page}: mix multiple choice and numeric questions"


@pytest.mark.parametrize("language", editions())
@pytest.mark.parametrize("page", sorted(KEYS))
def test_quiz_comes_before_the_exercises(language, page):
    ids = [c.get("id") for c in nbformat.read(ROOT / "chapters" / language / f"{page}.ipynb", as_version=4).cells]
    at = ids.index("quiz")
    assert ids[at - 1] == "quiz-md"
    assert ids[at + 1 :] in ([], ids[ids.index("exercises-md") :] if "exercises-md" in ids else [])


@pytest.mark.parametrize("language", [code for code in editions() if code != "en"])
def test_a_right_answer_changed_in_one_edition_fails(language):
    page = "attention-scoring-functions"
    source = quiz_source(language, page)
    changed = source.replace("'kind': 'choice', 'answer': 'b'", "'kind': 'choice', 'answer': 'a'", 1)
    assert changed != source
    assert any("answer 'a', the key says 'b'" in problem for problem in check_cell(KEYS[page], language, changed))
    assert any("differs from English" in p for p in compare_quiz(cell(quiz_source("en", page)), cell(changed)))


def test_a_number_or_tolerance_changed_fails():
    page = "attention-scoring-functions"
    source = quiz_source("ko", page)
    for old, new in (("'answer': 64,", "'answer': 65,"), ("'tolerance': 2,", "'tolerance': 3,")):
        assert check_cell(KEYS[page], "ko", source.replace(old, new, 1)) != []


def test_a_missing_explanation_or_question_fails():
    page = "preliminaries"
    source = quiz_source("id", page)
    _, _, questions = parse_quiz_cell(source)
    broken = copy.deepcopy(questions)
    first = broken[0]["choices"][0] if "choices" in broken[0] else broken[0]
    first["why"] = ""
    no_why = f"show_quiz('preliminaries', 'id', {broken!r})"
    assert any("why: missing" in problem for problem in check_cell(KEYS[page], "id", no_why))
    fewer = f"show_quiz('preliminaries', 'id', {questions[1:]!r})"
    assert any("differ from the key's" in problem for problem in check_cell(KEYS[page], "id", fewer))
    assert compare_quiz(cell(quiz_source("en", page)), cell(fewer)) != []


def test_the_wrong_language_fails():
    assert check_cell(KEYS["preliminaries"], "ko", quiz_source("id", "preliminaries")) != []


def test_english_left_in_a_translated_quiz_is_reported():
    page = "preliminaries"
    english, korean = quiz_source("en", page), quiz_source("ko", page)
    _, _, questions_en = parse_quiz_cell(english)
    _, _, questions_ko = parse_quiz_cell(korean)
    questions_ko[0]["choices"][1]["why"] = questions_en[0]["choices"][1]["why"]
    mixed = f"show_quiz('preliminaries', 'ko', {questions_ko!r})"
    assert check_english_left(cell(english), cell(korean), set()) == []
    assert any("left in English" in problem for problem in check_english_left(cell(english), cell(mixed), set()))


def test_key_schema(tmp_path: Path):
    (tmp_path / "chapters").mkdir()
    shutil.copy(ROOT / "_config.yml", tmp_path / "_config.yml")
    good = (ROOT / KEY_FILE).read_text(encoding="utf-8")
    (tmp_path / KEY_FILE).write_text(good.replace("kind: choice", "kind: choise", 1), encoding="utf-8")
    with pytest.raises(ConfigError, match="kind"):
        read_keys(tmp_path)
    (tmp_path / KEY_FILE).write_text(good.replace("    code:\n", "    cod:\n", 1), encoding="utf-8")
    with pytest.raises(ConfigError, match="cod"):
        read_keys(tmp_path)


@pytest.mark.parametrize("language", editions())
@pytest.mark.parametrize("page", sorted(KEYS))
def test_quiz_html_is_deterministic_and_accessible(language, page):
    args = parse_quiz_cell(quiz_source(language, page))
    first, second = show_quiz(*args)._repr_html_(), show_quiz(*args)._repr_html_()
    assert first == second
    ids = re.findall(r'\bid="([^"]+)"', first)
    assert len(ids) == len(set(ids)), "element ids are unique"
    assert all(i.startswith(f"d2l-quiz-{page}") for i in ids)
    for radio in re.findall(r'<input type="radio"[^>]*id="([^"]+)"', first):
        assert f'<label for="{radio}">' in first
    for field in re.findall(r'<input type="text"[^>]*id="([^"]+)"', first):
        assert f'<label for="{field}">' in first
    assert first.count('role="status" aria-live="polite"') == len(args[2])
    assert "http" not in first, "no script or style from the network"
