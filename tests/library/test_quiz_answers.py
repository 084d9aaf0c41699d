"""Every numeric answer of the quizzes (``chapters/quizzes.yml``), computed with each framework's d2l_lib.

The key's ``code`` for a question runs with ``d2l`` bound to ``d2l_lib.<framework>`` and
``np`` to NumPy and sets ``answer``; the key's answer must be within the question's
tolerance of it. A wrong key, or a library that stops computing what the page teaches,
fails here.
"""

from __future__ import annotations

import importlib
import textwrap

import numpy as np
import pytest

from booktools.project import Project
from booktools.sources.frameworks import FRAMEWORKS
from booktools.sources.quizzes import read_keys

PROJECT = Project.here()
NUMERIC = [
    (page, question)
    for page, key in read_keys(PROJECT).items()
    for question in key.questions
    if question.kind == "number"
]


def test_there_are_numeric_questions():
    assert {page for page, _ in NUMERIC} == set(read_keys(PROJECT)), "every quiz has a numeric question"


@pytest.mark.parametrize("framework", FRAMEWORKS, ids=lambda framework: framework.name)
@pytest.mark.parametrize(("page", "question"), NUMERIC, ids=[f"{p}-{q.id}" for p, q in NUMERIC])
def test_numeric_answer(page, question, framework):
    d2l = importlib.import_module(f"d2l_lib.{framework.module}")
    code = question.code.get("all", question.code.get(framework.name))
    namespace = {"d2l": d2l, "np": np}
    exec(textwrap.dedent(code), namespace)  # noqa: S102 - the key's own code, from the repository
    computed = namespace["answer"]
    assert abs(float(computed) - float(question.answer)) <= question.tolerance, (
        f"{page}: {question.id}: the key says {question.answer} (± {question.tolerance}), "
        f"d2l_lib.{framework.module} computes {computed}"
    )
