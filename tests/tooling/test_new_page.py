"""``python -m booktools new-page``: a new page's starting files agree with each other (booktools.derive.new_page)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import nbformat
import pytest

from booktools.__main__ import main as booktools_command
from booktools.derive.new_page import NewPage, NewPageError, add_page
from booktools.project import BUILD_INPUTS, Project
from booktools.sources.page_manifest import manifest_problems, read_manifest

PROJECT = Project.here()


@pytest.fixture
def book(tmp_path: Path) -> Project:
    for name in BUILD_INPUTS:
        source = PROJECT.root / name
        if source.is_dir():
            shutil.copytree(source, tmp_path / name, ignore=shutil.ignore_patterns("__pycache__"))
        elif source.exists():
            shutil.copy2(source, tmp_path / name)
    return Project(tmp_path)


def test_a_new_page_is_in_every_edition_in_the_reading_order_and_in_the_manifest(book: Project) -> None:
    written = add_page(NewPage("attention-pooling", "Attention Pooling", after="preliminaries", words=1800), book)
    assert book.page_names()[1:3] == ["preliminaries", "attention-pooling"]
    for code in book.editions():
        assert f"chapters/{code}/attention-pooling.ipynb" in written
        assert book.page_names(code) == book.page_names()
        cell = nbformat.read(book.edition_dir(code) / "attention-pooling.ipynb", as_version=4).cells[0]
        assert (cell.id, cell.source) == ("title", "(sec_attention-pooling)=\n# Attention Pooling")
    facts = read_manifest(book)["attention-pooling"]
    assert (facts.words, facts.quiz) == (1800, False)
    assert manifest_problems(book) == []
    assert "# Each page's facts" in book.pages_file.read_text(encoding="utf-8"), "the manifest's comments stay"


def test_the_command_adds_a_page_last_by_default_and_says_what_is_left(book: Project, capsys) -> None:
    assert booktools_command(["--root", str(book.root), "new-page", "notes", "--title", "Notes", "--quiz"]) == 0
    assert book.page_names()[-1] == "notes" and read_manifest(book)["notes"].quiz
    assert "make outputs" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("page", "message"),
    [
        (NewPage("preliminaries", "Again"), "exists already"),
        (NewPage("Bad Name", "Title"), "lowercase letters"),
        (NewPage("fine", "Title", after="nowhere"), "not a page of _toc.yml"),
        (NewPage("fine", "Title", words=0), "positive word cap"),
        (NewPage("fine", "  "), "needs a title"),
    ],
)
def test_a_page_that_cannot_be_added_is_refused_before_anything_is_written(book, page, message) -> None:
    before = {path: path.read_bytes() for path in [book.toc_file, book.pages_file]}
    with pytest.raises(NewPageError, match=message):
        add_page(page, book)
    assert {path: path.read_bytes() for path in before} == before
    assert not any((book.edition_dir(code) / "fine.ipynb").exists() for code in book.editions())


def test_an_inline_manifest_entry_is_followed_too_and_a_refusal_writes_nothing(book: Project) -> None:
    text = book.pages_file.read_text(encoding="utf-8")
    inline = re.sub(
        r"^  preliminaries:\n(?:    .*\n)+", "  preliminaries: {words: null, quiz: true}\n", text, flags=re.M
    )
    assert inline != text
    book.pages_file.write_text(inline, encoding="utf-8")
    assert read_manifest(book)["preliminaries"].quiz
    add_page(NewPage("attention-pooling", "Attention Pooling", after="preliminaries"), book)
    assert manifest_problems(book) == [] and book.page_names()[2] == "attention-pooling"
    book.pages_file.write_text(inline.replace("  attention-scoring-functions:", "  renamed:"), encoding="utf-8")
    before = book.toc_file.read_bytes()
    with pytest.raises(NewPageError, match="no entry 'attention-scoring-functions'"):
        add_page(NewPage("fine", "Fine", after="attention-scoring-functions"), book)
    assert book.toc_file.read_bytes() == before
    assert not any((book.edition_dir(code) / "fine.ipynb").exists() for code in book.editions())
