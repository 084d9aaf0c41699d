"""The translated prose itself, cell by cell: no sentence left in English, the glossary's terms, the
edition's style rules.

- :func:`check_english_left`: no sentence left in English;
- :func:`check_glossary`: no banned variant, and the chosen term where English names the concept;
- :func:`check_style_rules`: nothing that breaks one of the edition's style rules
  (the glossary's ``rules``);
- :func:`check_plain_texts`: the same two for texts outside the cells (the heatmaps' alt
  text): no banned variant, nothing that breaks a rule for ``all`` cells.

Markdown is read as :func:`booktools.checks.translations.markdown.parsed` reads it; the glossary and
the style rules read it with each measured figure's placeholder as a number (``0``): a cell id is
no prose.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence

from booktools.checks.translations.cells import Cell
from booktools.checks.translations.glossary import StyleRule, Term
from booktools.checks.translations.markdown import parsed
from booktools.checks.translations.prose import (
    MIN_COPIED_WORDS,
    copied_from_english,
    looks_english,
    quote,
    sentences,
    squash,
)
from booktools.checks.translations.pycode import code_prose
from booktools.project import Project
from booktools.sources.frameworks import BEGIN_TAB, END_TAB, TAB_LINE
from booktools.sources.measured import without_placeholders
from booktools.sources.quizzes import QUIZ_TAG, quiz_prose
from booktools.sources.slide_marks import strip_slide_marks


def _blank_framework_marks(source: str) -> str:
    """Blank the ``#@tab``/``:begin_tab:``/``:end_tab:`` lines (marks, not prose), keeping line numbers."""
    lines = source.split("\n")
    return "\n".join(
        "" if TAB_LINE.match(line) or BEGIN_TAB.match(line) or line.strip() == END_TAB else line for line in lines
    )


def _prose(cell: Cell, project: Project) -> list[tuple[int | str, str]]:
    """(where, sentence) of a cell's prose: markdown text, the comments and docstrings of code, or the
    texts of the quiz a quiz cell shows; ``where`` is a line of the cell, or for a quiz which text of its data."""
    source = _blank_framework_marks(cell.source)
    if cell.kind == "code" and QUIZ_TAG in cell.tags:
        return list(quiz_prose(source, project))
    return list(sentences(parsed(source).blocks) if cell.kind == "markdown" else code_prose(source))


def _at(where: int | str, offset: int = 0) -> str:
    """Where a problem is: ``line N`` of the cell, or a text of a quiz's data (``quizzes.quiz_prose``)."""
    return f"line {where + offset}" if isinstance(where, int) else where


def check_english_left(english: Cell, translation: Cell, kept: set[str], project: Project) -> list[str]:
    """Report the sentences of a translated cell that are still English."""
    originals = {sentence for _, sentence in _prose(english, project)}
    problems = []
    for line, sentence in _prose(translation, project):
        if copied_from_english(sentence, originals, kept, MIN_COPIED_WORDS[translation.kind]):
            problems.append(f"prose left in English ({_at(line)}, as in English): {quote(sentence)}")
        elif looks_english(sentence):
            problems.append(f"prose left in English ({_at(line)}): {quote(sentence)}")
    return problems


@functools.lru_cache(maxsize=1024)  # every term, for every cell
def _term_pattern(term: str) -> re.Pattern[str]:
    """A glossary term anywhere, not inside a longer word on its left; spaces match any white space."""
    return re.compile(r"(?<!\w)" + r"\s+".join(map(re.escape, term.split())), re.IGNORECASE)


def check_glossary(english: Cell, translation: Cell, terms: list[Term], project: Project) -> list[str]:
    """Report banned variants in a translated cell, and chosen terms missing from a markdown cell."""
    problems = []
    # A code cell's prose is its comments and docstrings (its code is English's, names such as
    # torch.autograd included); a quiz cell's texts are in its edition's quiz data.
    texts = (
        [(1, without_placeholders(translation.source))]
        if translation.kind == "markdown"
        else _prose(translation, project)
    )
    problems += _banned_variants(texts, terms)
    if translation.kind == "markdown":
        english_prose = parsed(english.source).prose
        translated = squash(parsed(translation.source).prose.replace("*", "")).lower()
        for term in terms:
            if term.english.search(english_prose) and squash(term.term).lower() not in translated:
                problems.append(
                    f"glossary: English names {term.concept!r} here, but the translation lacks the term {term.term!r}"
                )
    return problems


def _banned_variants(texts: Sequence[tuple[int | str, str]], terms: list[Term]) -> list[str]:
    """Report each banned variant of ``terms`` in ``texts`` ((where, text) pairs)."""
    problems = []
    for term in terms:
        for variant in term.banned:
            for where, text in texts:
                for match in _term_pattern(variant).finditer(text):
                    at = _at(where, text.count("\n", 0, match.start()))
                    problems.append(
                        f"glossary: banned variant {match.group(0)!r} of {term.concept!r} ({at}); write {term.term!r}"
                    )
    return problems


def _rule_texts(cell: Cell, rule: StyleRule, project: Project) -> list[tuple[int | str, str]]:
    """(where, text) a style rule searches: a markdown cell's source, or a code cell's prose (a quiz's texts)."""
    if cell.kind == "markdown":
        source = without_placeholders(strip_slide_marks(cell.source, keep_slides_only=True))
        return [(1, source if rule.emphasis else source.replace("*", ""))]
    return _prose(cell, project)


def check_style_rules(translation: Cell, rules: dict[str, StyleRule], project: Project) -> list[str]:
    """Report the text of a translated cell that breaks one of its edition's style rules.

    A rule searches a markdown cell's source (slide marks and, unless ``emphasis``,
    emphasis marks removed) and the comments, docstrings and quiz text of a code
    cell, for its ``pattern`` and its ``banned`` forms (matched like a concept's
    banned variants).
    """
    problems = []
    for name, rule in rules.items():
        if rule.cells in ("all", translation.kind):
            problems += _rule_breaks(name, rule, _rule_texts(translation, rule, project))
    return problems


def _rule_breaks(name: str, rule: StyleRule, texts: Sequence[tuple[int | str, str]]) -> list[str]:
    """Report the text of ``texts`` ((where, text) pairs) that breaks the style rule ``name``."""
    patterns = ([re.compile(rule.pattern, re.IGNORECASE | re.MULTILINE)] if rule.pattern else []) + [
        _term_pattern(form) for form in rule.banned
    ]
    problems = []
    for first_line, text in texts:
        for pattern in patterns:
            for match in pattern.finditer(text):
                at = _at(first_line, text.count("\n", 0, match.start()))
                problems.append(f"style rule {name!r}: {match.group(0)!r} ({at}): {rule.statement}")
    return problems


def check_plain_texts(
    texts: Sequence[tuple[int | str, str]],
    terms: list[Term],
    rules: dict[str, StyleRule],
) -> list[str]:
    """Report banned variants, and breaks of the rules for ``all`` cells, in texts that are no cell.

    ``texts``: (where, text) pairs, ``where`` naming the text (``heatmaps.single``). Rules
    for markdown or code alone read those cells' syntax, so they do not apply here.
    """
    problems = _banned_variants(texts, terms)
    for name, rule in rules.items():
        if rule.cells == "all":
            problems += _rule_breaks(name, rule, texts)
    return problems
