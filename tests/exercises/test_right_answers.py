"""Right answers, reports in the edition's language, hints and refused arguments, in every framework:
the library's solutions and readers' answers by other routes pass their checks."""

from __future__ import annotations

import json
import re
import sys
from importlib import resources

import pytest

from d2l_lib.exercises import EXERCISES, report

CHECKING = sys.modules["d2l_tests_exercise_checking"]  # checking.py, loaded by conftest.py
ENGLISH, NAMES, flat, check, printed = (
    CHECKING.ENGLISH,
    CHECKING.NAMES,
    CHECKING.flat,
    CHECKING.check,
    CHECKING.printed,
)


@pytest.mark.parametrize("exercise", list(EXERCISES))
def test_the_library_solution_passes(lib, exercise, capsys):
    result, out = check(lib.d2l, exercise, getattr(lib.d2l, NAMES[exercise]), capsys)
    assert result and not result.failed, out
    assert re.search(r"All \d+ checks passed\.", out)
    assert "✗" not in out


@pytest.mark.parametrize("exercise", list(EXERCISES))
def test_right_answers_by_other_routes_pass(lib, answers, exercise, capsys):
    for answer in answers(lib.name)[exercise]["right"]:
        result, out = check(lib.d2l, exercise, answer, capsys)
        assert result, f"{answer.__name__} is right, but:\n{out}"


def _has_exercises(lang: str) -> bool:
    text = resources.files("d2l_lib").joinpath("messages", f"{lang}.json").read_text(encoding="utf-8")
    return "exercises" in json.loads(text)


@pytest.mark.parametrize("lang", report.languages())
def test_a_report_speaks_the_language_asked_for(lib, answers, lang, capsys):
    if not _has_exercises(lang):  # the translation's own test, below, reports the missing section
        assert lang != "en"
        with pytest.raises((KeyError, ValueError)):
            report.messages(lang)
        return
    text = report.messages(lang)
    stub = answers(lib.name)["attention-cost"]["stub"]
    result, out = check(lib.d2l, "attention-cost", stub, capsys, lang=lang)
    assert not result
    assert flat(text["header"].format(exercise="attention-cost")) in out
    assert flat(text["problems"]["not_implemented"].format(name="attention_cost")) in out
    assert flat(text["properties"]["cost_returns"]) in out
    _, out = check(lib.d2l, "attention-cost", lib.d2l.attention_cost, capsys, lang=lang)
    assert flat(text["all_passed"].format(count=5)) in out
    lib.d2l.hint_exercise("attention-cost", lang=lang)
    assert flat(text["hints"]["attention-cost"][0]) in printed(capsys)


def _keys(tree, prefix=""):
    if isinstance(tree, dict):
        return {key for name, value in tree.items() for key in _keys(value, f"{prefix}/{name}")}
    if isinstance(tree, list):
        return {f"{prefix}[{len(tree)}]"}
    return {prefix}


@pytest.mark.parametrize("lang", [lang for lang in report.languages() if lang != "en"])
def test_every_language_has_every_english_string_of_the_checks(lang):
    text = json.loads(resources.files("d2l_lib").joinpath("messages", f"{lang}.json").read_text(encoding="utf-8"))
    assert "exercises" in text, f"d2l_lib/messages/{lang}.json has no section 'exercises'"
    missing = sorted(_keys(ENGLISH) - _keys(text["exercises"]))
    assert not missing, f"{lang}.json lacks (or has another number of) {missing}"


def test_unknown_exercises_and_languages_are_refused_naming_the_allowed_ones(lib):
    d2l = lib.d2l
    for call in (lambda: d2l.check_exercise("softmax", d2l.masked_softmax), lambda: d2l.hint_exercise("softmax")):
        with pytest.raises(ValueError) as info:
            call()
        assert all(repr(exercise) in str(info.value) for exercise in EXERCISES), info.value
        assert "'softmax'" in str(info.value)
    for call in (
        lambda: d2l.check_exercise("masked-softmax", d2l.masked_softmax, lang="xx"),
        lambda: d2l.hint_exercise("masked-softmax", lang="xx"),
    ):
        with pytest.raises(ValueError) as info:
            call()
        assert all(repr(lang) in str(info.value) for lang in report.languages()), info.value
        assert "'xx'" in str(info.value)


@pytest.mark.parametrize("exercise", list(EXERCISES))
def test_hints_come_in_order_then_the_last_says_so(lib, exercise, capsys):
    hints = ENGLISH["hints"][exercise]
    assert len(hints) >= 2
    for number, hint in enumerate(hints, start=1):
        lib.d2l.hint_exercise(exercise)
        assert printed(capsys) == flat(ENGLISH["hint"].format(number=number, total=len(hints), text=hint))
    for _ in range(2):
        lib.d2l.hint_exercise(exercise)
        assert printed(capsys) == flat(ENGLISH["no_more_hints"])
    other = next(other for other in EXERCISES if other != exercise)
    lib.d2l.hint_exercise(other)  # each exercise counts its own hints
    first = flat(ENGLISH["hint"].format(number=1, total=len(ENGLISH["hints"][other]), text=""))
    assert printed(capsys).startswith(first)
