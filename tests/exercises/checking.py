"""What the exercise checks' tests share: run a check and read its report (loaded by ``conftest.py``;
a test module finds it as ``sys.modules["d2l_tests_exercise_checking"]``)."""

from __future__ import annotations

from d2l_lib.exercises import REFERENCES, report

ENGLISH = report.messages("en")
NAMES = REFERENCES  # each exercise's own answer in the library
"""The name of each exercise's answer in the library."""


def flat(text: str) -> str:
    """``text`` with every run of white space made one space: reports wrap their lines at 79 columns."""
    return " ".join(text.split())


def check(d2l, exercise, answer, capsys, lang="en"):
    """Run the check; return its result and what it printed (flattened). It never raises, never prints a traceback."""
    result = d2l.check_exercise(exercise, answer, lang=lang)
    out = capsys.readouterr().out
    assert "Traceback" not in out and 'File "' not in out, out
    assert all(report.columns(line) <= report.WIDTH for line in out.splitlines()), out
    return result, flat(out)


def printed(capsys) -> str:
    """What was printed since the last read, flattened."""
    return flat(capsys.readouterr().out)


def failure_of(result, prop: str):
    """The first outcome of property ``prop``, which must fail."""
    failed = [outcome for outcome in result.outcomes if outcome.property == prop and outcome.failure is not None]
    assert failed, f"{prop} does not fail: {result!r}"
    return failed[0]
