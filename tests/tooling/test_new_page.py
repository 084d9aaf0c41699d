"""``python -m booktools new-page``: a new page's starting files agree with each other (booktools.sources.new_page)."""

from __future__ import annotations

import re

import nbformat
import pytest

from booktools.__main__ import main as booktools_command
from booktools.project import Project
from booktools.sources.new_page import NewPage, NewPageError, add_page
from booktools.sources.page_manifest import manifest_problems, read_manifest

PROJECT = Project.here()


def test_a_new_page_is_in_every_edition_in_the_reading_order_and_in_the_manifest(book_copy: Project) -> None:
    written = add_page(NewPage("attention-pooling", "Attention Pooling", after="preliminaries", words=1800), book_copy)
    assert book_copy.page_names()[1:3] == ["preliminaries", "attention-pooling"]
    for code in book_copy.editions():
        assert f"chapters/{code}/attention-pooling.ipynb" in written
        assert book_copy.page_names(code) == book_copy.page_names()
        cell = nbformat.read(book_copy.edition_dir(code) / "attention-pooling.ipynb", as_version=4).cells[0]
        assert (cell.id, cell.source) == ("title", "(sec_attention-pooling)=\n# Attention Pooling")
    facts = read_manifest(book_copy)["attention-pooling"]
    assert (facts.words, facts.quiz) == (1800, False)
    assert manifest_problems(book_copy) == []
    assert "# Each page's facts" in book_copy.pages_file.read_text(encoding="utf-8"), "the manifest's comments stay"


def test_the_command_adds_a_page_last_by_default_and_says_what_is_left(book_copy: Project, capsys) -> None:
    assert booktools_command(["--root", str(book_copy.root), "new-page", "notes", "--title", "Notes", "--quiz"]) == 0
    assert book_copy.page_names()[-1] == "notes" and read_manifest(book_copy)["notes"].quiz
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
def test_a_page_that_cannot_be_added_is_refused_before_anything_is_written(book_copy, page, message) -> None:
    before = {path: path.read_bytes() for path in [book_copy.toc_file, book_copy.pages_file]}
    with pytest.raises(NewPageError, match=message):
        add_page(page, book_copy)
    assert {path: path.read_bytes() for path in before} == before
    assert not any((book_copy.edition_dir(code) / "fine.ipynb").exists() for code in book_copy.editions())


def test_an_inline_manifest_entry_is_followed_too_and_a_refusal_writes_nothing(book_copy: Project) -> None:
    text = book_copy.pages_file.read_text(encoding="utf-8")
    inline = re.sub(
        r"^  preliminaries:\n(?:    .*\n)+", "  preliminaries: {words: null, quiz: true}\n", text, flags=re.M
    )
    assert inline != text
    book_copy.pages_file.write_text(inline, encoding="utf-8")
    assert read_manifest(book_copy)["preliminaries"].quiz
    add_page(NewPage("attention-pooling", "Attention Pooling", after="preliminaries"), book_copy)
    assert manifest_problems(book_copy) == [] and book_copy.page_names()[2] == "attention-pooling"
    book_copy.pages_file.write_text(inline.replace("  attention-scoring-functions:", "  renamed:"), encoding="utf-8")
    before = book_copy.toc_file.read_bytes()
    with pytest.raises(NewPageError, match="no entry 'attention-scoring-functions'"):
        add_page(NewPage("fine", "Fine", after="attention-scoring-functions"), book_copy)
    assert book_copy.toc_file.read_bytes() == before
    assert not any((book_copy.edition_dir(code) / "fine.ipynb").exists() for code in book_copy.editions())
