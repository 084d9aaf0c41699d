"""Every edition's quizzes against the answer keys and the page manifest (``make test``'s quiz check).

:func:`check_quizzes` reports every way the quizzes depart from ``chapters/quizzes.yml``
(``booktools.sources.quizzes``) and from ``quiz`` in ``chapters/pages.yml``
(``booktools.sources.page_manifest``): a page with ``quiz: true`` and no key, a key for
another page, a missing or extra quiz cell, and any question of an edition's data that is
not the key's.
"""

from __future__ import annotations

import sys
from typing import Any

import nbformat

from booktools.configuration.schema import ConfigError
from booktools.project import Project
from booktools.sources.page_manifest import read_manifest
from booktools.sources.quizzes import (
    QUIZ_TAG,
    check_cell,
    check_questions,
    data_file,
    quiz_cells,
    read_keys,
    read_quiz_data,
)

__all__ = ["check_quizzes"]


def check_quizzes(project: Project) -> list[str]:
    """Check every edition's quiz cells and quiz data against the answer keys; return the problems, one line each.

    The pages with a key are exactly those with ``quiz: true`` in ``chapters/pages.yml``;
    each has exactly one quiz cell in every edition, and every other page none. Every
    edition's data has the key's pages, no other, each with the key's questions (raises
    ``ConfigError`` or ``ValueError`` if the keys or the page manifest are malformed, see
    :func:`read_keys`).
    """
    keys = read_keys(project)
    keys_name = project.relative(project.quiz_keys_file)
    manifest, manifest_name = read_manifest(project), project.relative(project.pages_file)
    problems = [
        f"{manifest_name}: page {page!r} has quiz: true, but {keys_name} has no answer key for it"
        for page, facts in manifest.items()
        if facts.quiz and page not in keys
    ]
    problems += [
        f"{keys_name}: an answer key for page {page!r}, which {manifest_name} does not give quiz: true"
        for page in keys
        if page not in manifest or not manifest[page].quiz
    ]
    without_quiz = [page for page, facts in manifest.items() if not facts.quiz]
    for language in project.editions():
        name = project.relative(data_file(language, project))
        try:
            data: dict[str, list[dict[str, Any]]] | None = read_quiz_data(language, project)
        except FileNotFoundError:
            data = None
            problems.append(f"{name}: missing (the quiz data of the {language!r} edition)")
        except ValueError as error:
            data = None
            problems.append(str(error))
        if data is not None:
            problems += [f"{name}: page {page!r} has no answer key in {keys_name}" for page in data if page not in keys]
        for key in keys.values():
            if data is not None:
                if key.page not in data:
                    problems.append(f"{name}: no quiz for page {key.page!r}")
                else:
                    problems += [f"{name}: {key.page}: {problem}" for problem in check_questions(key, data[key.page])]
            page = project.edition_dir(language) / f"{key.page}.ipynb"
            if not page.exists():
                problems.append(f"{project.relative(project.quiz_keys_file)}: no page {project.relative(page)}")
                continue
            cells = quiz_cells(nbformat.read(page, as_version=4))
            if len(cells) != 1:
                problems.append(f"{project.relative(page)}: {len(cells)} quiz cells (tag {QUIZ_TAG}); one expected")
                continue
            problems += [
                f"{project.relative(page)}, cell {cells[0].get('id')}: {problem}"
                for problem in check_cell(key, language, cells[0].source)
            ]
        for page_name in without_quiz:
            page = project.edition_dir(language) / f"{page_name}.ipynb"
            if page.exists() and (count := len(quiz_cells(nbformat.read(page, as_version=4)))):
                problems.append(
                    f"{project.relative(page)}: {count} quiz cell(s) (tag {QUIZ_TAG}), but {manifest_name} "
                    "gives the page quiz: false"
                )
    return problems


def run(project: Project) -> int:
    """``python -m booktools check``'s quiz part: 0 when the quizzes agree with their keys and the manifest, else 1."""
    try:
        problems = check_quizzes(project)
    except (ConfigError, ValueError) as error:
        problems = [str(error)]
    for problem in problems:
        print(f"quizzes: {problem}", file=sys.stderr)
    if not problems:
        print("quizzes match their answer keys and chapters/pages.yml")
    return 1 if problems else 0
