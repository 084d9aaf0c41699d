"""Each page's facts, in one data file: ``chapters/pages.yml``, one entry per page of ``_toc.yml``.

An entry says what the rest of the book holds the page to: ``words``, its word cap (the
most words a reader meets in each framework's tab of the built English page, counted by
``booktools.checks.page_words``; ``null`` for none), and ``quiz``, whether every edition
ends it with a quiz (``booktools.sources.quiz_check.check_quizzes`` requires a quiz exactly
for those pages). :func:`manifest_problems` names a page of ``_toc.yml`` without an entry
and an entry for no page; ``python -m booktools check`` runs it (:func:`run`).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field

from booktools.configuration.schema import ConfigError, load
from booktools.project import Project

__all__ = ["PageFacts", "PageManifest", "manifest_problems", "quiz_pages", "read_manifest", "run", "word_caps"]


def _positive(words: int | None) -> int | None:
    if words is not None and words <= 0:
        raise ValueError(f"a word cap is a positive number of words, or null for none; got {words}")
    return words


@dataclass(frozen=True)
class PageFacts:
    """One page's entry: its word cap per framework tab (None: no cap) and whether it has a quiz."""

    words: int | None = field(metadata={"check": _positive})
    quiz: bool


@dataclass(frozen=True)
class PageManifest:
    """``chapters/pages.yml``: the facts of every page, by page name."""

    pages: dict[str, PageFacts]


def read_manifest(project: Project) -> dict[str, PageFacts]:
    """Return each page's facts, by page name, as ``chapters/pages.yml`` gives them.

    Raises:
        booktools.configuration.schema.ConfigError: if the file is missing or malformed, naming the key.
    """
    return load(project.pages_file, PageManifest, project.relative(project.pages_file)).pages


def manifest_problems(project: Project) -> list[str]:
    """Name each page of ``_toc.yml`` without an entry, each entry for no page, and entries out of
    ``_toc.yml``'s reading order; ``[]`` when they agree.

    Raises:
        booktools.configuration.schema.ConfigError: if the file is missing or malformed.
    """
    name = project.relative(project.pages_file)
    entries, pages = list(read_manifest(project)), project.page_names()
    listed = set(entries)
    problems = [f"{name}: no entry for the page {page!r} of _toc.yml" for page in pages if page not in listed]
    problems += [f"{name}: {page!r} is no page of _toc.yml" for page in sorted(listed - set(pages))]
    in_both = [page for page in entries if page in pages]
    if not problems and in_both != [page for page in pages if page in listed]:
        problems.append(f"{name}: the entries are not in _toc.yml's reading order ({', '.join(pages)})")
    return problems


def word_caps(project: Project) -> dict[str, int]:
    """Return the word cap of each page that has one, by page name.

    Raises:
        booktools.configuration.schema.ConfigError: if ``chapters/pages.yml`` is missing or malformed.
    """
    return {page: facts.words for page, facts in read_manifest(project).items() if facts.words is not None}


def quiz_pages(project: Project) -> set[str]:
    """Return the names of the pages with ``quiz: true``.

    Raises:
        booktools.configuration.schema.ConfigError: if ``chapters/pages.yml`` is missing or malformed.
    """
    return {page for page, facts in read_manifest(project).items() if facts.quiz}


def run(project: Project) -> int:
    """Print what ``manifest_problems`` finds; 0 when the manifest and ``_toc.yml`` agree, 1 otherwise."""
    try:
        problems = manifest_problems(project)
    except ConfigError as error:
        problems = [str(error)]
    for problem in problems:
        print(f"page manifest: {problem}", file=sys.stderr)
    return 1 if problems else 0
