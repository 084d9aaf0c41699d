"""Each page's facts in one file (``chapters/pages.yml``, ``booktools.sources.page_manifest``).

Every page of ``_toc.yml`` has an entry and every entry is a page: a page left out, or
an entry for no page, or entries out of the reading order, is named (here and by
``python -m booktools check``). The entries
follow their schema: a word cap is a positive number or null, ``quiz`` is required.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml

from booktools.configuration.schema import ConfigError
from booktools.project import Project
from booktools.sources import page_manifest
from booktools.sources.page_manifest import manifest_problems, quiz_pages, read_manifest, word_caps

PROJECT = Project.here()


@pytest.fixture
def book(tmp_path: Path) -> Project:
    """A copy of what the manifest is checked against: the configuration, the reading order and the pages."""
    scratch = Project(tmp_path)
    for path in (PROJECT.config_file, PROJECT.toc_file):
        shutil.copy(path, scratch.root / path.name)
    shutil.copytree(PROJECT.chapters, scratch.chapters, ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
    return scratch


def edit(book: Project, change) -> None:
    """Apply ``change`` to the ``pages`` mapping of ``book``'s manifest."""
    data = yaml.safe_load(book.pages_file.read_text(encoding="utf-8"))
    change(data["pages"])
    book.pages_file.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")


def test_every_page_of_the_book_has_an_entry_and_every_entry_is_a_page():
    assert manifest_problems(PROJECT) == []
    assert list(read_manifest(PROJECT)) == PROJECT.page_names(), "the entries in reading order, as _toc.yml"


def test_a_page_without_an_entry_is_named(book: Project):
    edit(book, lambda pages: pages.pop("attention-scoring-functions"))
    assert manifest_problems(book) == [
        "chapters/pages.yml: no entry for the page 'attention-scoring-functions' of _toc.yml"
    ]


def test_an_entry_for_no_page_is_named(book: Project, capsys: pytest.CaptureFixture[str]):
    edit(book, lambda pages: pages.update(notes={"words": 100, "quiz": False}))
    assert manifest_problems(book) == ["chapters/pages.yml: 'notes' is no page of _toc.yml"]
    assert page_manifest.run(book) == 1
    assert "'notes' is no page of _toc.yml" in capsys.readouterr().err


def test_entries_out_of_the_reading_order_are_named(book: Project):
    def swap(pages: dict) -> None:
        first = next(iter(pages))
        pages[first] = pages.pop(first)  # the first entry moved last

    edit(book, swap)
    (problem,) = manifest_problems(book)
    assert problem.startswith("chapters/pages.yml: the entries are not in _toc.yml's reading order")


def test_the_book_s_manifest_passes_the_check(capsys: pytest.CaptureFixture[str]):
    assert page_manifest.run(PROJECT) == 0
    assert capsys.readouterr().err == ""


def test_only_pages_with_a_cap_have_one_and_the_quiz_pages_are_those_with_quiz_true(book: Project):
    edit(book, lambda pages: pages["preliminaries"].update(words=None, quiz=False))
    assert "preliminaries" not in word_caps(book) and "preliminaries" not in quiz_pages(book)
    assert all(cap > 0 for cap in word_caps(book).values())


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda facts: facts.pop("quiz"), r"pages\.preliminaries: missing key 'quiz'"),
        (lambda facts: facts.pop("words"), r"pages\.preliminaries: missing key 'words'"),
        (lambda facts: facts.update(words=0), r"pages\.preliminaries\.words: .*positive number of words"),
        (lambda facts: facts.update(quiz="yes"), r"pages\.preliminaries\.quiz: expected true or false"),
        (lambda facts: facts.update(cap=10), r"pages\.preliminaries: unknown key 'cap'"),
    ],
)
def test_a_malformed_entry_is_refused_naming_its_key(book: Project, change, message):
    edit(book, lambda pages: change(pages["preliminaries"]))
    with pytest.raises(ConfigError, match=rf"chapters/pages\.yml: {message}"):
        read_manifest(book)
