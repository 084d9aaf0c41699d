"""Compare every page of every edition with English (``make check-translations``).

Each page ``_toc.yml`` lists is compared with its English original, cell by cell
(``booktools.translations.compare``), after its cells are matched by id
(``booktools.translations.cells``). Problems are reported as
``<file>, cell <number> (id <id>): <problem>``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from booktools.book import ROOT, SOURCE_LANGUAGE, editions, pages, relative
from booktools.quizzes import QUIZ_TAG
from booktools.translations.cells import pair_cells, read_cells, where
from booktools.translations.compare import (
    check_english_left,
    check_glossary,
    check_style_rules,
    compare_code,
    compare_frameworks,
    compare_markdown,
    compare_outputs,
    compare_slide_marks,
)
from booktools.translations.glossary import GlossaryError, StyleRule, Term, read_glossary, read_rules
from booktools.translations.prose import WORD
from booktools.translations.quiz import compare_quiz


def compare_page(
    english_path: Path,
    translation_path: Path,
    terms: list[Term],
    root: Path = ROOT,
    rules: dict[str, StyleRule] | None = None,
) -> list[str]:
    """Compare one translated page with its English original; return the problems found."""
    path = relative(translation_path, root)
    kept = {word.lower() for term in terms for word in WORD.findall(term.term)}
    problems, pairs = pair_cells(path, read_cells(english_path), read_cells(translation_path))
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
            found += compare_quiz(english, translation, root)
        elif english.kind == "code":
            found += compare_code(english, translation) + compare_outputs(english, translation)
        elif english.kind == "markdown":
            found += compare_markdown(english, translation) + compare_slide_marks(english, translation)
        elif english.source != translation.source:
            found.append(f"{english.kind} cell differs from English")
        if english.kind in ("code", "markdown"):
            found += check_glossary(english, translation, terms, root)
            found += check_english_left(english, translation, kept, root)
            found += check_style_rules(translation, rules or {}, root)
        problems += [f"{here}: {problem}" for problem in found]
    return problems


def check(root: Path = ROOT, languages: list[str] | None = None) -> list[str]:
    """Compare every translated page with English; return the problems, one line each.

    Raises:
        GlossaryError: if ``chapters/glossary.yml`` is malformed.
        booktools.schema.ConfigError: if ``_config.yml``'s editions are.
    """
    problems = []
    english_pages = pages(SOURCE_LANGUAGE, root)
    for language in languages or [code for code in editions(root) if code != SOURCE_LANGUAGE]:
        terms, rules = read_glossary(language, root), read_rules(language, root)
        folder = root / "chapters" / language
        expected = set()
        for english in english_pages:
            translation = folder / english.relative_to(root / "chapters" / SOURCE_LANGUAGE)
            expected.add(translation)
            if not translation.exists():
                problems.append(f"{relative(translation, root)}: missing (English has {relative(english, root)})")
                continue
            problems += compare_page(english, translation, terms, root, rules)
        for extra in sorted(set(folder.rglob("*.ipynb")) - expected):
            if ".ipynb_checkpoints" not in extra.parts:
                problems.append(f"{relative(extra, root)}: not in the English edition")
    return problems


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point (``make check-translations``): 0 in sync, 1 problems found, 2 cannot check."""
    parser = argparse.ArgumentParser(description="Check that every translation matches the English edition.")
    parser.add_argument("languages", nargs="*", help="editions to check (default: all but English)")
    parser.add_argument("--root", type=Path, default=ROOT, help="the book's root folder")
    args = parser.parse_args(argv)
    root = args.root.resolve()
    try:
        problems = check(root, args.languages or None)
        checked = args.languages or [code for code in editions(root) if code != SOURCE_LANGUAGE]
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
