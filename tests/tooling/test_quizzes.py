"""The quizzes' answer keys (``chapters/quizzes.yml``), each edition's quiz data and quiz cell.

Every edition's quiz data (``d2l_lib/quizzes/<lang>.json``) has the key's questions in the
key's order, with its right answers, and a text for every question, choice and explanation;
a right answer changed in one edition, a missing explanation or a question dropped fails,
and so does a missing data file. A quiz cell is one call, ``show_quiz(<page>, lang=<lang>)``.
The translation checker compares an edition's data with English without its texts, and
reads its texts as prose (English left in, banned glossary variants). The quiz's HTML is the
same on every run, and accessible: a label for every control, a live region per question.

No notebook gives the quiz away: neither the sources nor the stored outputs of
``chapters/`` and ``notebooks/`` hold an explanation or a readable key (the outputs are
those of ``make outputs``). The wheel ships the data.
"""

from __future__ import annotations

import html
import json
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

import nbformat
import pytest
import yaml

from booktools.checks.translations.cells import Cell
from booktools.checks.translations.glossary import read_glossary, read_rules
from booktools.checks.translations.quiz_data import compare_quiz
from booktools.checks.translations.wording import check_english_left, check_glossary, check_style_rules
from booktools.configuration.schema import ConfigError
from booktools.project import Project
from booktools.sources.quiz_check import check_quizzes
from booktools.sources.quizzes import (
    QUIZ_TAG,
    check_cell,
    data_file,
    parse_quiz_cell,
    quiz_cells,
    read_keys,
    read_quiz_data,
)
from d2l_lib.quiz import show_quiz

PROJECT = Project.here()
KEYS = read_keys(PROJECT)
LANGUAGES = PROJECT.editions()
# A readable key or explanation: a field of the data, or an attribute of the old HTML.
READABLE_KEY = re.compile(r"""['"](answer|why|tolerance)['"]\s*:|data-(answer|why|tolerance)\b""")


def quiz_source(language: str, page: str) -> str:
    return quiz_cells(nbformat.read(PROJECT.edition_dir(language) / f"{page}.ipynb", as_version=4))[0].source


def cell(language: str, page: str) -> Cell:
    return Cell(1, "quiz", "code", quiz_source(language, page), (QUIZ_TAG, "remove-input"))


@pytest.fixture
def book(tmp_path: Path) -> Project:
    """A copy of what the quizzes are checked against: configuration, pages, keys and data."""
    scratch = Project(tmp_path)
    shutil.copy(PROJECT.config_file, scratch.config_file)
    shutil.copytree(PROJECT.chapters, scratch.chapters, ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
    shutil.copytree(PROJECT.library_data_dir, scratch.library_data_dir)
    return scratch


def edit_data(book: Project, language: str, change: Any) -> None:
    """Apply ``change`` to the pages of ``language``'s quiz data in ``book``."""
    path = data_file(language, book)
    content = json.loads(path.read_text(encoding="utf-8"))
    change(content["pages"])
    path.write_text(json.dumps(content, ensure_ascii=False, indent=2), encoding="utf-8")


def test_every_edition_matches_the_key():
    assert check_quizzes(PROJECT) == []


def test_every_content_page_has_a_quiz_of_five_to_eight_questions():
    pages = {path.stem for path in PROJECT.source_pages()}
    assert set(KEYS) == pages
    for key in KEYS.values():
        assert 5 <= len(key.questions) <= 8
        kinds = {question.kind for question in key.questions}
        assert kinds == {"choice", "number"}, f"{key.page}: mix multiple choice and numeric questions"


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("page", sorted(KEYS))
def test_quiz_comes_before_the_exercises(language, page):
    ids = [c.get("id") for c in nbformat.read(PROJECT.edition_dir(language) / f"{page}.ipynb", as_version=4).cells]
    at = ids.index("quiz")
    assert ids[at - 1] == "quiz-md"
    after = [cell_id for cell_id in ids[at + 1 :] if cell_id != "references-md"]  # the bibliography closes a page
    assert after == (
        [cell_id for cell_id in ids[ids.index("exercises-md") :] if cell_id != "references-md"]
        if "exercises-md" in ids
        else []
    )


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("page", sorted(KEYS))
def test_a_quiz_cell_is_one_call(language, page):
    assert parse_quiz_cell(quiz_source(language, page)) == (page, language)


def test_only_the_call_is_accepted():
    assert parse_quiz_cell("from d2l_lib.quiz import show_quiz\nshow_quiz('p', 'en')") == ("p", "en")
    assert parse_quiz_cell("#@tab all\nfrom d2l_lib.quiz import show_quiz\nshow_quiz(page='p', lang='ko')") == (
        "p",
        "ko",
    )
    for wrong in (
        "from d2l_lib.quiz import show_quiz\nshow_quiz('p', 'en', [{'id': 'q', 'answer': 'a'}])",  # the old cells
        "from d2l_lib.quiz import show_quiz\nanswer = 'b'\nshow_quiz('p', 'en')",
        "show_quiz('p', 'en')",
        "from d2l_lib.quiz import show_quiz\nshow_quiz('p', language)",
        "from d2l_lib.quiz import show_quiz\nshow_quiz('p', language='en')",
        "from d2l_lib.quiz import show_quiz\nshow_quiz('p'",
    ):
        with pytest.raises(ValueError):
            parse_quiz_cell(wrong)


@pytest.mark.parametrize("language", [code for code in LANGUAGES if code != "en"])
def test_a_right_answer_changed_in_one_edition_fails(book, language):
    page = "attention-scoring-functions"
    edit_data(book, language, lambda pages: pages[page][0].update(answer="a"))
    assert any("answer 'a', the key says 'c'" in problem for problem in check_quizzes(book))
    assert any("differs from English" in p for p in compare_quiz(cell("en", page), cell(language, page), book))


def test_a_number_or_tolerance_changed_fails(book):
    page = "attention-scoring-functions"
    for field, value in (("answer", 65), ("tolerance", 3)):
        edit_data(book, "ko", lambda pages, f=field, v=value: pages[page][1].update({f: v}))
        assert any(f"{field} {value}" in problem for problem in check_quizzes(book))


def test_a_missing_explanation_question_or_file_fails(book):
    edit_data(book, "id", lambda pages: pages["preliminaries"][0]["choices"][0].update(why=""))
    assert any("check-shape, choice a, why: missing" in problem for problem in check_quizzes(book))
    edit_data(book, "id", lambda pages: pages["preliminaries"][1].pop("why"))
    assert any("reshape-entry, why: missing" in problem for problem in check_quizzes(book))
    edit_data(book, "id", lambda pages: pages["preliminaries"].pop(1))
    assert any("differ from the key's" in problem for problem in check_quizzes(book))
    assert compare_quiz(cell("en", "preliminaries"), cell("id", "preliminaries"), book) != []
    data_file("ko", book).unlink()
    assert "d2l_lib/quizzes/ko.json: missing (the quiz data of the 'ko' edition)" in check_quizzes(book)


def test_a_page_without_a_key_fails(book):
    edit_data(book, "en", lambda pages: pages.update(extra=pages["preliminaries"]))
    assert any("page 'extra' has no answer key" in problem for problem in check_quizzes(book))


def test_the_wrong_language_or_page_fails():
    assert check_cell(KEYS["preliminaries"], "ko", quiz_source("id", "preliminaries")) != []
    assert check_cell(KEYS["preliminaries"], "id", quiz_source("id", "attention-scoring-functions")) != []
    assert check_cell(KEYS["preliminaries"], "id", quiz_source("id", "preliminaries")) == []


def test_data_of_another_language_is_refused(book):
    path = data_file("ko", book)
    path.write_text(path.read_text(encoding="utf-8").replace('"language": "ko"', '"language": "id"'), "utf-8")
    with pytest.raises(ValueError, match="language 'id'"):
        read_quiz_data("ko", book)
    assert any("language 'id'" in problem for problem in check_quizzes(book))


def test_english_left_in_a_translated_quiz_is_reported(book):
    page = "preliminaries"
    assert check_english_left(cell("en", page), cell("ko", page), set(), book) == []
    english = read_quiz_data("en", book)[page][0]["choices"][1]["why"]
    edit_data(book, "ko", lambda pages: pages[page][0]["choices"][1].update(why=english))
    problems = check_english_left(cell("en", page), cell("ko", page), set(), book)
    assert problems and all("left in English" in problem for problem in problems)
    assert any(f"d2l_lib/quizzes/ko.json: {page}: check-shape, choice b, why" in p for p in problems)


def test_banned_glossary_variants_and_style_in_the_quiz_data_are_reported(book):
    page = "attention-scoring-functions"
    terms, rules = read_glossary("ko", book), read_rules("ko", book)
    assert check_glossary(cell("en", page), cell("ko", page), terms, book) == []
    assert check_style_rules(cell("ko", page), rules, book) == []
    edit_data(book, "ko", lambda pages: pages[page][2]["choices"][0].update(why="주의: 값들의 가중합입니다."))
    assert any("banned variant '주의'" in p for p in check_glossary(cell("en", page), cell("ko", page), terms, book))
    assert any("needless-plural" in problem for problem in check_style_rules(cell("ko", page), rules, book))


def test_key_schema(tmp_path: Path):
    scratch = Project(tmp_path)
    scratch.chapters.mkdir()
    shutil.copy(PROJECT.config_file, scratch.config_file)
    good = PROJECT.quiz_keys_file.read_text(encoding="utf-8")
    scratch.quiz_keys_file.write_text(good.replace("kind: choice", "kind: choise", 1), encoding="utf-8")
    with pytest.raises(ConfigError, match="kind"):
        read_keys(scratch)
    scratch.quiz_keys_file.write_text(good.replace("    code:\n", "    cod:\n", 1), encoding="utf-8")
    with pytest.raises(ConfigError, match="cod"):
        read_keys(scratch)


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("page", sorted(KEYS))
def test_quiz_html_is_deterministic_and_accessible(language, page):
    first, second = show_quiz(page, lang=language)._repr_html_(), show_quiz(page, lang=language)._repr_html_()
    assert first == second
    ids = re.findall(r'\bid="([^"]+)"', first)
    assert len(ids) == len(set(ids)), "element ids are unique"
    assert all(i.startswith(f"d2l-quiz-{page}") for i in ids)
    for radio in re.findall(r'<input type="radio"[^>]*id="([^"]+)"', first):
        assert f'<label for="{radio}">' in first
    for field in re.findall(r'<input type="text"[^>]*id="([^"]+)"', first):
        assert f'<label for="{field}">' in first
    assert first.count('role="status" aria-live="polite"') == len(KEYS[page].questions)
    assert "http" not in first, "no script or style from the network"


# --- No notebook gives the quiz away ---------------------------------------------------------


def explanations() -> list[str]:
    """Every explanation of every edition, with its consecutive pieces of 40 characters, so that an
    explanation split over string literals (as the quiz cells once wrote them) is still found. The
    pieces leave out the titles it quotes (“Checking Shapes”), which the page's headings show."""
    found = set()
    for language in LANGUAGES:
        for questions in read_quiz_data(language, PROJECT).values():
            for question in questions:
                texts = [question.get("why", "")] + [choice["why"] for choice in question.get("choices", [])]
                for text in filter(None, texts):
                    found.add(text)
                    for part in re.split(r"“[^”]*”", text):
                        found.update(part[i : i + 40] for i in range(0, len(part) - 39, 40))
    return sorted(found)


EXPLANATIONS = explanations()
NOTEBOOKS = sorted(PROJECT.chapters.glob("*/*.ipynb")) + sorted(PROJECT.notebooks_dir.glob("*/*/*.ipynb"))


def output_texts(output: dict[str, Any]) -> list[str]:
    """The text an output holds: a stream's text, every text MIME type of its data, an error's message."""
    texts = [output.get("text", ""), output.get("evalue", ""), *output.get("traceback", [])]
    for mime, value in output.get("data", {}).items():
        if mime.startswith("text/") or mime.endswith("json"):
            texts.append(value if isinstance(value, str) else json.dumps(value, ensure_ascii=False))
    return [text if isinstance(text, str) else "".join(text) for text in texts]


def leaks(text: str) -> list[str]:
    """What of the quiz's secrets ``text`` shows: explanations (raw or HTML-escaped), readable keys."""
    found = [match.group(0) for match in READABLE_KEY.finditer(text)]
    return found + [piece for piece in EXPLANATIONS if piece in text or html.escape(piece) in text]


def test_the_secrets_are_searched_for():
    """The search finds what it looks for: a key written as data, an explanation, or a piece of one."""
    assert len(EXPLANATIONS) > 100
    why = read_quiz_data("ko", PROJECT)["preliminaries"][0]["choices"][0]["why"]
    assert leaks(f"x = {{'answer': 'b', 'why': {why[:30]!r}\n    {why[30:]!r}}}") != []
    assert leaks(html.escape(f'<input data-why="{why}">')) != []
    assert leaks("show_quiz('preliminaries', lang='ko')") == []


@pytest.mark.parametrize("path", NOTEBOOKS, ids=PROJECT.relative)
def test_no_notebook_source_gives_the_quiz_away(path: Path):
    notebook = nbformat.read(path, as_version=4)
    found = {cell.get("id"): leaks(cell.source) for cell in notebook.cells}
    assert {cell: what for cell, what in found.items() if what} == {}


@pytest.mark.parametrize("path", NOTEBOOKS, ids=PROJECT.relative)
def test_no_stored_output_gives_the_quiz_away(path: Path):
    """The stored outputs (``make outputs``): the quiz is there, its secrets only encoded."""
    notebook = nbformat.read(path, as_version=4)
    found = {}
    for cell in notebook.cells:
        for output in cell.get("outputs", []):
            if what := [leak for text in output_texts(output) for leak in leaks(text)]:
                found[cell.get("id")] = what
    assert found == {}
    shown = [
        output["data"]["text/html"]
        for cell in notebook.cells
        if "show_quiz(" in cell.source
        for output in cell.get("outputs", [])
        if "text/html" in output.get("data", {})
    ]
    if any("show_quiz(" in cell.source for cell in notebook.cells):
        assert len(shown) == 1 and 'class="d2l-quiz"' in shown[0] and 'data-code="' in shown[0], (
            "the quiz cell's stored output is the encoded quiz (run make outputs)"
        )


def test_the_wheel_ships_the_quiz_data(tmp_path: Path):
    """``pip install .`` installs the data files with the library (the quiz cells need them in Colab)."""
    source = tmp_path / "source"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(PROJECT.root / name, source / name)
    shutil.copytree(PROJECT.library_dir, source / "d2l_lib", ignore=shutil.ignore_patterns("__pycache__"))
    pip = [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation"]
    subprocess.run([*pip, "-w", str(tmp_path / "dist"), str(source)], check=True, capture_output=True, timeout=300)
    (wheel,) = (tmp_path / "dist").glob("d2l_lib-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    assert {f"d2l_lib/quizzes/{language}.json" for language in LANGUAGES} <= names
    assert "d2l_lib/quiz.py" in names


def test_the_pages_with_a_quiz_are_exactly_those_the_manifest_gives_quiz_true(book):
    manifest = yaml.safe_load(book.pages_file.read_text(encoding="utf-8"))
    manifest["pages"]["preliminaries"]["quiz"] = False
    book.pages_file.write_text(yaml.safe_dump(manifest), encoding="utf-8")
    problems = check_quizzes(book)
    assert (
        "chapters/quizzes.yml: an answer key for page 'preliminaries', which chapters/pages.yml does not give "
        "quiz: true"
    ) in problems
    assert any(problem.startswith("chapters/ko/preliminaries.ipynb: 1 quiz cell(s)") for problem in problems)


def test_a_page_with_quiz_true_but_no_answer_key_fails(book):
    keys = yaml.safe_load(book.quiz_keys_file.read_text(encoding="utf-8"))
    del keys["pages"]["attention-scoring-in-practice"]
    book.quiz_keys_file.write_text(yaml.safe_dump(keys), encoding="utf-8")
    assert (
        "chapters/pages.yml: page 'attention-scoring-in-practice' has quiz: true, but chapters/quizzes.yml has "
        "no answer key for it"
    ) in check_quizzes(book)
