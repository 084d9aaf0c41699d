"""What a check finds, and how it is told: properties, failures, and the printed report.

Every word a reader sees comes from the edition's ``d2l_lib/messages/<language>.json``
(section ``"exercises"``), so a check speaks the language of the page it runs on.
"""

from __future__ import annotations

import dataclasses
import json
import unicodedata
from importlib import resources
from typing import Any

import numpy as np

MESSAGES = "messages"  # the package data folder of the library's strings (as d2l_lib.quiz reads it)
DEFAULT_LANGUAGE = "en"


def languages() -> list[str]:
    """Return the languages the checks speak (those with a messages file)."""
    folder = resources.files("d2l_lib").joinpath(MESSAGES)
    return sorted(entry.name.removesuffix(".json") for entry in folder.iterdir() if entry.name.endswith(".json"))


def messages(lang: str) -> dict[str, Any]:
    """Return the ``"exercises"`` strings of language ``lang``.

    Raises:
        ValueError: if the library has no strings in ``lang``.
    """
    if not isinstance(lang, str) or lang not in languages():
        raise ValueError(f"lang must be one of {', '.join(map(repr, languages()))}, got {lang!r}")
    text = resources.files("d2l_lib").joinpath(MESSAGES).joinpath(f"{lang}.json").read_text(encoding="utf-8")
    return dict(json.loads(text)["exercises"])


class Failure(Exception):
    """A property that does not hold: ``key`` names its message, ``fields`` fill it in.

    ``mistake`` names a common mistake the received value matches, if any; ``fatal`` means the
    answer cannot be checked further (a stub, a class that cannot be constructed).
    """

    def __init__(self, key: str, *, mistake: str | None = None, fatal: bool = False, **fields: Any) -> None:
        super().__init__(key)
        self.key, self.mistake, self.fatal, self.fields = key, mistake, fatal, fields


@dataclasses.dataclass
class Outcome:
    """One property of an exercise, as checked: ``failure`` is ``None`` when it holds."""

    property: str
    case: str
    failure: Failure | None = None


def _fill(template: str, fields: dict[str, Any]) -> str:
    return template.format(**{name: value for name, value in fields.items()})


@dataclasses.dataclass
class CheckResult:
    """The result of ``check_exercise``: truthy exactly when every property holds.

    ``outcomes`` lists each property checked, in order; ``skipped`` counts the properties not
    checked after a fatal failure. ``report()`` is the text the check printed.
    """

    exercise: str
    lang: str
    outcomes: list[Outcome]
    skipped: int = 0

    @property
    def passed(self) -> bool:
        """Whether every property holds."""
        return not self.skipped and all(outcome.failure is None for outcome in self.outcomes)

    @property
    def failed(self) -> list[str]:
        """The properties that do not hold, by key."""
        return [outcome.property for outcome in self.outcomes if outcome.failure is not None]

    def __bool__(self) -> bool:
        return self.passed

    def __repr__(self) -> str:
        return f"CheckResult({self.exercise!r}, passed={self.passed})"

    def report(self) -> str:
        """Return the report in the check's language: one line per property, details under each failure."""
        text = messages(self.lang)
        lines = wrap(_fill(text["header"], {"exercise": self.exercise}))
        explained: set[str] = set()  # a mistake is explained once, then referred to
        for outcome in self.outcomes:
            name = _fill(text["properties"][outcome.property], {})
            case = f" ({_fill(text['cases'][outcome.case], {})})" if outcome.case else ""
            mark = "✓" if outcome.failure is None else "✗"
            lines += wrap(f"{mark} {name}{case}", "  ", "    ")
            failure = outcome.failure
            if failure is not None:
                lines += wrap(_fill(text["problems"][failure.key], failure.fields), "      ")
                if failure.mistake in explained:
                    lines += wrap(text["mistake_again"], "      ")
                elif failure.mistake:
                    explained.add(failure.mistake)
                    lines += wrap(_fill(text["mistake"], {"mistake": text["mistakes"][failure.mistake]}), "      ")
        if self.skipped:
            lines += wrap(_fill(text["skipped"], {"count": self.skipped}), "  ")
        total, failed = len(self.outcomes) + self.skipped, len(self.failed)
        if self.passed:
            lines += wrap(_fill(text["all_passed"], {"count": total}))
        else:
            fields = {"failed": failed, "count": total, "exercise": self.exercise, "lang": self.lang}
            lines += wrap(_fill(text["some_failed"], fields))
        return "\n".join(lines)


WIDTH = 79  # the book's code and outputs fit 79 columns (PEP 8), so that nothing scrolls on a page


def columns(text: str) -> int:
    """Return how many columns ``text`` takes in a monospaced font (a Hangul or CJK character takes two)."""
    return sum(2 if unicodedata.east_asian_width(char) in "WF" else 1 for char in text)


def wrap(text: str, indent: str = "", continuation: str | None = None, width: int = WIDTH) -> list[str]:
    """Return ``text`` as lines of at most ``width`` columns, broken between words.

    The first line starts with ``indent``, the others with ``continuation`` (``indent`` by
    default). A word longer than a line stays whole.
    """
    rest = indent if continuation is None else continuation
    lines: list[str] = []
    line = indent
    for word in text.split():
        start = line in (indent, rest) and not line.strip()
        candidate = line + word if start else f"{line} {word}"
        if columns(candidate) > width and not start:
            lines.append(line)
            line = rest + word
        else:
            line = candidate
    lines.append(line)
    return lines


def fmt_number(value: float) -> str:
    """Return ``value`` as the report prints numbers: 4 significant digits, NaN and inf by name."""
    return f"{value:.4g}"


def where_differs(expected: np.ndarray, received: np.ndarray, rtol: float, atol: float) -> dict[str, str] | None:
    """Return the first index where ``received`` is not close to ``expected``, as report fields, or None.

    Fields: ``index`` (as ``[0, 1, 3]``), ``expected``, ``received`` and ``count`` (how many
    entries differ, of how many). Arrays of other shapes are told by their shapes.
    """
    if expected.shape != received.shape:
        return {"index": "", "expected": str(expected.shape), "received": str(received.shape), "count": ""}
    close = np.isclose(received.astype(np.float64), expected.astype(np.float64), rtol=rtol, atol=atol)
    close |= np.isnan(expected) & np.isnan(received)
    if close.all():
        return None
    bad = np.argwhere(~close)
    first = tuple(int(i) for i in bad[0])
    return {
        "index": "[" + ", ".join(map(str, first)) + "]",
        "expected": fmt_number(float(expected[first])),
        "received": fmt_number(float(received[first])),
        "count": f"{len(bad)}/{expected.size}",
    }
