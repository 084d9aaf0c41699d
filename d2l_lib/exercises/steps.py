"""Running a check: its steps in order, each a property on one input, until one is fatal.

A step is ``(property, case, test)``; ``test()`` returns when the property holds on that
input and raises :class:`~d2l_lib.exercises.report.Failure` when it does not. A fatal failure
(a stub, an object of the wrong kind) ends the check: the steps after it are counted, not run.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from d2l_lib.exercises import mistakes
from d2l_lib.exercises.report import Failure, Outcome, where_differs

Step = tuple[str, str, Callable[[], None]]


def run(steps: Iterable[Step]) -> tuple[list[Outcome], int]:
    """Run ``steps``; return the outcome of each step run, and how many were skipped after a fatal failure."""
    steps = list(steps)
    outcomes: list[Outcome] = []
    for number, (prop, case, test) in enumerate(steps):
        try:
            test()
            outcomes.append(Outcome(prop, case))
        except Failure as failure:
            outcomes.append(Outcome(prop, case, failure))
            if failure.fatal:
                return outcomes, len(steps) - number - 1
    return outcomes, 0


def compare(
    what: str,
    expected: np.ndarray,
    received: np.ndarray,
    rtol: float,
    atol: float,
    variants: dict[str, np.ndarray] | None = None,
) -> None:
    """Raise ``Failure("values")`` unless ``received`` is close to ``expected``, naming a matching mistake."""
    differs = where_differs(expected, received, rtol, atol)
    if differs is None:
        return
    if differs["index"] == "":
        raise Failure("shape", what=what, expected=differs["expected"], received=differs["received"])
    mistake = mistakes.matching(received, variants or {}, rtol=max(rtol, 1e-3), atol=max(atol, 1e-4))
    if mistake is None and np.isnan(received).any():
        mistake = "nan"
    fields: dict[str, Any] = dict(differs)
    raise Failure("values", what=what, mistake=mistake, **fields)
