"""Compare every page of every edition with English (``make check-translations``).

Each page ``_toc.yml`` lists is compared with its English original, cell by cell
(``booktools.checks.translations.compare``), after its cells are matched by id
(``booktools.checks.translations.cells``). Problems are reported as
``<file>, cell <number> (id <id>): <problem>``. The edition's alt-text templates
(``chapters/<lang>/alt_text.yml``) are held to its glossary's banned variants too.
"""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

import nbformat

from booktools.checks.translations.cells import pair_cells, read_cells, where
from booktools.checks.translations.code_texts import check_registry
from booktools.checks.translations.compare import (
    compare_code,
    compare_figures,
    compare_frameworks,
    compare_markdown,
    compare_outputs,
    compare_slide_marks,
)
from booktools.checks.translations.glossary import GlossaryError, StyleRule, Term, read_glossary, read_rules
from booktools.checks.translations.number_format import check_number_format
from booktools.checks.translations.prose import WORD
from booktools.checks.translations.quiz_data import compare_quiz
from booktools.checks.translations.wording import (
    check_english_left,
    check_glossary,
    check_plain_texts,
    check_style_rules,
)
from booktools.project import SOURCE_LANGUAGE, Project
from booktools.sources.alt_text import edition_heatmap_text
from booktools.sources.code_text import read_registry
from booktools.sources.library_messages import check_library_messages
from booktools.sources.measured import MeasuredError, page_figures
from booktools.sources.quizzes import QUIZ_TAG
from booktools.sources.strings import load_strings


def compare_page(
    english_path: Path,
    translation_path: Path,
    terms: list[Term],
    project: Project,
    rules: dict[str, StyleRule] | None = None,
    texts: frozenset[str] = frozenset(),
    translated: dict[str, set[tuple[str, str]]] | None = None,
) -> list[str]:
    """Compare one translated page with its English original; return the problems found.

    ``texts``: the templates of the words the page's code shows the reader
    (``chapters/code_text.yml``); the translations found for them are added to
    ``translated`` (template: {(translation, where)}).
    """
    path = project.relative(translation_path)
    language = project.language_of(translation_path)
    kept = {word.lower() for term in terms for word in WORD.findall(term.term)}
    problems, pairs = pair_cells(path, read_cells(english_path), read_cells(translation_path))
    numbers = load_strings(project, language).numbers
    figures = _page_figures(translation_path, path)
    for english, translation in pairs:
        here = where(path, translation)
        if english.kind != translation.kind:
            problems.append(f"{here}: a {translation.kind} cell, English cell {english.number} is {english.kind}")
            continue
        found = (
            []
            if english.tags == translation.tags
            else [f"tags differ from English: English {list(english.tags)}, translation {list(translation.tags)}"]
        )
        if english.kind in ("code", "markdown"):
            found += compare_frameworks(english, translation)
        if english.kind == "code" and QUIZ_TAG in english.tags:
            found += compare_quiz(english, translation, project)
        elif english.kind == "code":
            code_problems, text_pairs = compare_code(english, translation, language, texts)
            found += code_problems + compare_outputs(english, translation, text_pairs)
            for text, translated_text in text_pairs:
                (translated if translated is not None else {}).setdefault(text, set()).add((translated_text, here))
        elif english.kind == "markdown":
            found += compare_markdown(english, translation, numbers.decimal) + compare_slide_marks(english, translation)
            found += compare_figures(english, translation)
            found += check_number_format(translation.source, numbers, figures)
        elif english.source != translation.source:
            found.append(f"{english.kind} cell differs from English")
        if english.kind in ("code", "markdown"):
            found += check_glossary(english, translation, terms, project)
            found += check_english_left(english, translation, kept, project)
            found += check_style_rules(translation, rules or {}, project)
        problems += [f"{here}: {problem}" for problem in found]
    return problems


def _page_figures(path: Path, where: str) -> dict[str, dict[str, float]]:
    """The measured figures a notebook's stored outputs recorded (none for an ``.md`` page, or a malformed record,
    which ``compare_outputs`` and the build report)."""
    if path.suffix != ".ipynb":
        return {}
    try:
        return page_figures(nbformat.read(path, as_version=4).cells, where)
    except MeasuredError:
        return {}


def check_alt_text(language: str, terms: list[Term], rules: dict[str, StyleRule], project: Project) -> list[str]:
    """Hold an edition's alt-text templates (``chapters/<lang>/alt_text.yml``) to its glossary and rules.

    Raises:
        booktools.configuration.schema.ConfigError: if the file is malformed.
    """
    text = edition_heatmap_text(language, project)
    if text is None:
        return []
    templates = [
        (f"heatmaps.{field.name}", value)
        for field in dataclasses.fields(text)
        if isinstance(value := getattr(text, field.name), str)
    ]
    path = project.relative(project.alt_text_file(language))
    return [f"{path}: {problem}" for problem in check_plain_texts(templates, terms, rules)]


def check(project: Project, languages: list[str] | None = None) -> list[str]:
    """Compare every translated page with English; return the problems, one line each.

    Raises:
        GlossaryError: if ``chapters/glossary.yml`` is malformed.
        booktools.configuration.schema.ConfigError: if ``_config.yml``'s editions are.
    """
    problems = check_library_messages(project)  # d2l_lib's own strings, in every edition
    problems += check_registry(project)  # the words the code shows, as English lists them
    registry = read_registry(project)
    english_pages = project.pages(SOURCE_LANGUAGE)
    for language in languages or [code for code in project.editions() if code != SOURCE_LANGUAGE]:
        terms, rules = read_glossary(language, project), read_rules(language, project)
        translated: dict[str, set[tuple[str, str]]] = {}
        folder = project.chapters / language
        expected = set()
        for english in english_pages:
            translation = folder / english.relative_to(project.chapters / SOURCE_LANGUAGE)
            expected.add(translation)
            if not translation.exists():
                problems.append(f"{project.relative(translation)}: missing (English has {project.relative(english)})")
                continue
            texts = registry.page(english.stem)
            problems += compare_page(english, translation, terms, project, rules, texts, translated)
        problems += check_alt_text(language, terms, rules, project)
        problems += [
            f"{language}: {text!r} is translated in more than one way: "
            + "; ".join(f"{found!r} ({where})" for found, where in sorted(ways))
            for text, ways in sorted(translated.items())
            if len({found for found, _ in ways}) > 1
        ]
        for extra in sorted(set(folder.rglob("*.ipynb")) - expected):
            if ".ipynb_checkpoints" not in extra.parts:
                problems.append(f"{project.relative(extra)}: not in the English edition")
    return problems


def run(project: Project, languages: list[str] | None = None) -> int:
    """``python -m booktools translations [lang ...]``: 0 in sync, 1 problems found, 2 cannot check."""
    try:
        problems = check(project, languages or None)
        checked = languages or [code for code in project.editions() if code != SOURCE_LANGUAGE]
    except (GlossaryError, FileNotFoundError, ValueError) as error:  # ConfigError is a ValueError
        print(f"check-translations failed: {error}", file=sys.stderr)
        return 2
    if problems:
        print(f"The translations differ from English ({len(problems)} problem(s)):", file=sys.stderr)
        for problem in problems:
            print(f"- {problem}", file=sys.stderr)
        return 1
    print(f"translations match English: {', '.join(checked) or '(none)'}")
    return 0
