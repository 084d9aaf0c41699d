"""A translated quiz cell (``booktools.quizzes``) against English.

Its texts are translated, so neither its code nor its outputs can equal English: what
must be equal is the quiz without its texts (questions, kinds, choices, right answers,
tolerances, in the same order) and the kinds of its outputs.
"""

from __future__ import annotations

from booktools.quizzes import parse_quiz_cell, quiz_structure
from booktools.translations.cells import Cell


def compare_quiz(english: Cell, translation: Cell) -> list[str]:
    """Describe how a translated quiz cell differs from English other than in its texts."""
    try:
        page_en, _, questions_en = parse_quiz_cell(english.source)
    except ValueError as error:
        return [f"the English quiz cell is malformed: {error}"]
    try:
        page_tr, _, questions_tr = parse_quiz_cell(translation.source)
    except ValueError as error:
        return [f"quiz differs from English: {error}"]
    problems = [] if page_en == page_tr else [f"quiz of page {page_tr!r}, English {page_en!r}"]
    want, have = quiz_structure(questions_en), quiz_structure(questions_tr)
    if want != have:
        for index, (a, b) in enumerate(zip(want, have), start=1):
            if a != b:
                problems.append(f"quiz question {index} differs from English other than in its text: {b} vs {a}")
                break
        else:
            problems.append(f"quiz has {len(have)} question(s), English {len(want)}")
    kinds = [(o.get("output_type"), sorted(o.get("data", {}))) for o in english.outputs]
    if kinds != [(o.get("output_type"), sorted(o.get("data", {}))) for o in translation.outputs]:
        problems.append("quiz outputs differ from English in kind")
    return problems
