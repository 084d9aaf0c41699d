"""A translated quiz cell (``booktools.sources.quizzes``) against English.

A quiz cell is one call, ``show_quiz(<page>, lang=<language>)``, whose questions are the
edition's quiz data (``d2l_lib/quizzes/<language>.json``). Its texts are translated, so
what must equal English is the page it shows and its questions without their texts
(questions, kinds, choices, right answers, tolerances, in the same order), and the kinds
of its outputs. Its texts are read as prose by ``booktools.checks.translations.compare``.
"""

from __future__ import annotations

from booktools.checks.translations.cells import Cell
from booktools.project import Project
from booktools.sources.quizzes import data_file, parse_quiz_cell, quiz_structure, read_quiz_data


def compare_quiz(english: Cell, translation: Cell, project: Project) -> list[str]:
    """Describe how a translated quiz cell, and the quiz data it shows, differ from English other than in texts."""
    try:
        page_en, language_en = parse_quiz_cell(english.source)
        questions_en = read_quiz_data(language_en, project).get(page_en, [])
    except (ValueError, OSError) as error:
        return [f"the English quiz is malformed: {error}"]
    try:
        page_tr, language_tr = parse_quiz_cell(translation.source)
        questions_tr = read_quiz_data(language_tr, project).get(page_tr, [])
    except (ValueError, OSError) as error:
        return [f"quiz differs from English: {error}"]
    problems = [] if page_en == page_tr else [f"quiz of page {page_tr!r}, English {page_en!r}"]
    want, have = quiz_structure(questions_en), quiz_structure(questions_tr)
    if want != have:
        where = f"{project.relative(data_file(language_tr, project))}: {page_tr}"
        for index, (a, b) in enumerate(zip(want, have), start=1):
            if a != b:
                problems.append(
                    f"{where}: quiz question {index} differs from English other than in its text: {b} vs {a}"
                )
                break
        else:
            problems.append(f"{where}: quiz has {len(have)} question(s), English {len(want)}")
    kinds = [(o.get("output_type"), sorted(o.get("data", {}))) for o in english.outputs]
    if kinds != [(o.get("output_type"), sorted(o.get("data", {}))) for o in translation.outputs]:
        problems.append("quiz outputs differ from English in kind")
    return problems
