"""A pytest plugin that makes nbval compare figures, and numbers as numbers.

nbval compares every output's text character by character, and a figure only by
its ``text/plain`` (``<Figure size 250x250 with 2 Axes>``), skipping ``image/png``.
This plugin wraps nbval's output comparison:

- **numbers**: before nbval compares, each text output (a stream, ``text/plain``,
  any other ``text/*``) that differs from the stored one only in the last digit of
  its decimal numbers, by at most ``booktools.configuration.bars.MAX_LAST_DIGIT_UNITS`` units, is
  taken as equal (the stored text replaces the fresh one); every other difference
  (words, integers, dtypes, the count and layout of the numbers, an exponent, a
  number further off) is left for nbval to report, and each number that differs
  is named under nbval's diff. See ``booktools.checks.nbval_numbers`` for the rules.
- **figures**: after nbval's own checks, every PNG a cell produces is compared
  with the stored one (``booktools.checks.nbval_figures`` for the rule).

Registered by name, ``-p booktools.checks.nbval_plugin``, in ``pyproject.toml``'s pytest ``addopts``, so
every pytest run of the repository loads it; it acts only in a run that replays notebooks (given nbval's
``--nbval`` or ``--nbval-lax``). In any other run (``tests/`` alone) its hook returns at once and nbval is
left as it is; importing the module imports no nbval, so it loads wherever pytest runs, nbval or not.

nbval 0.11 has no hook for this: its pytest plugin declares no hook specifications,
``--nbval-sanitize-with`` only rewrites text by regular expressions (it cannot
compare two numbers), and ``--nbdime`` compares images byte for byte. So this
plugin replaces the method ``nbval.plugin.IPyNbCell.compare_outputs``, a coupling to
nbval's insides listed with the others in ``booktools.upstream``. Before it does, it
checks that the installed nbval is of the series written for (the registry's guard),
then that the method is there with the signature it was written for
(:data:`EXPECTED_SIGNATURE`), which a patch release could still change: either way the
test run stops at once, with the registry's message naming the places, rather than
comparing figures no more.
"""

from __future__ import annotations

import copy
import inspect
import typing
from collections import defaultdict
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pytest

from booktools.checks import nbval_figures, nbval_numbers
from booktools.configuration.bars import MAX_LAST_DIGIT_UNITS
from booktools.upstream.guard import UpstreamChanged, installed_release, problem, require_releases, tool

EXPECTED_SIGNATURE = "(self, test, ref, skip_compare=None)"
# What the replacement uses of a cell besides the method: nbval 0.11's attributes.
CELL_ATTRIBUTES = ("comparison_traceback", "fspath", "name")
# Set on the replacement, so that a second plugin load does not wrap it again.
MARK = "compares_numbers_and_figures"
# The destinations of nbval's options that make pytest replay notebooks: --nbval and --nbval-lax.
NBVAL_OPTIONS = ("nbval", "nbval_lax")

NBVAL = tool("nbval")
CompareOutputs = Callable[[Any, list[dict[str, Any]], list[dict[str, Any]], Any], bool]


class NbvalChanged(RuntimeError):
    """nbval's output comparison is not what this plugin was written for."""


def changed_nbval(changed: str) -> NbvalChanged:
    """The error for an nbval whose comparison is not what this plugin was written for, in the registry's words."""
    return NbvalChanged(problem(NBVAL, installed_release(NBVAL.distribution), f"its {changed}"))


def original_compare_outputs(cell_class: Any) -> CompareOutputs:
    """Return nbval's ``compare_outputs`` of ``cell_class``, checking it is the one this plugin wraps.

    Raises:
        NbvalChanged: if the method is missing or its signature is not :data:`EXPECTED_SIGNATURE`.
    """
    written = f"nbval {NBVAL.release}'s compare_outputs{EXPECTED_SIGNATURE}, which booktools was written against"
    name = getattr(cell_class, "__name__", cell_class)
    method = getattr(cell_class, "compare_outputs", None)
    if not callable(method):
        raise changed_nbval(f"{name} has no method compare_outputs, not {written}")
    found = str(inspect.signature(method))
    if found != EXPECTED_SIGNATURE:
        raise changed_nbval(f"{name}.compare_outputs{found} has changed from {written}")
    return typing.cast(CompareOutputs, method)


def _texts(outputs: Iterable[dict[str, Any]]) -> dict[str, list[tuple[dict[str, Any], str]]]:
    """Each text of ``outputs``, keyed as nbval keys it (the stream's name, or the MIME type), with where it lives."""
    found: dict[str, list[tuple[dict[str, Any], str]]] = defaultdict(list)
    for output in outputs:
        if output.get("output_type") == "stream":
            found[str(output.get("name", "stdout"))].append((output, "text"))
        for mime, value in (output.get("data") or {}).items():
            if mime.startswith("text/") and isinstance(value, str):
                found[mime].append((output["data"], mime))
    return found


def reconcile_numbers(
    test: list[dict[str, Any]], ref: list[dict[str, Any]], tolerance: int = MAX_LAST_DIGIT_UNITS
) -> tuple[list[dict[str, Any]], list[str]]:
    """Return a copy of ``test`` in which each text that prints what its stored twin in ``ref`` prints,
    numbers within ``tolerance`` units of their last digit, is replaced by the stored text; and a note
    naming each difference of the other texts (see ``booktools.checks.nbval_numbers.compare``)."""
    test = copy.deepcopy(test)
    stored, fresh = _texts(ref), _texts(test)
    notes: list[str] = []
    for key, places in fresh.items():
        twins = stored.get(key, [])
        if len(twins) != len(places):  # nbval reports the different number of outputs
            continue
        for (stored_holder, stored_field), (holder, field) in zip(twins, places):
            want, have = stored_holder[stored_field], holder[field]
            if want == have:
                continue
            mismatches = nbval_numbers.compare(want, have, tolerance)
            if mismatches:
                notes.extend(f"  {key}: {mismatch.message}" for mismatch in mismatches)
            else:
                holder[field] = want
    return test, notes


def comparing_outputs(original: CompareOutputs) -> CompareOutputs:
    """Return ``original`` with numbers compared as numbers, followed by the comparison of the cell's figures."""

    def compare_outputs(
        self: Any, test: list[dict[str, Any]], ref: list[dict[str, Any]], skip_compare: Any = None
    ) -> bool:
        test, notes = reconcile_numbers(test, ref)
        if not original(self, test, ref, skip_compare):
            if notes:
                self.comparison_traceback.append(
                    f"Where the texts differ (numbers may differ by {MAX_LAST_DIGIT_UNITS} unit(s) of their "
                    "last printed digit; booktools.checks.nbval_numbers):"
                )
                self.comparison_traceback.extend(notes)
            return False
        missing = [name for name in CELL_ATTRIBUTES if not hasattr(self, name)]
        if missing:
            raise changed_nbval(
                f"cells no longer have {', '.join(missing)}, which booktools was written against ({NBVAL.release})"
            )
        name = f"{Path(str(self.fspath)).stem}-{self.name}"
        problems = nbval_figures.compare_pngs(nbval_figures.pngs(ref), nbval_figures.pngs(test), name)
        if problems:
            self.comparison_traceback.extend(problems)
            return False
        return True

    setattr(compare_outputs, MARK, True)  # noqa: B010 - an attribute functions do not declare
    return compare_outputs


def replays_notebooks(config: pytest.Config) -> bool:
    """Whether nbval replays notebooks in this run: pytest was given ``--nbval`` or ``--nbval-lax``.

    Without nbval installed, pytest knows neither option, and the answer is no.
    """
    return any(config.getoption(option, default=False) for option in NBVAL_OPTIONS)


def pytest_configure(config: pytest.Config) -> None:
    """In a run that replays notebooks, replace nbval's output comparison by one that compares numbers as
    numbers, and figures (once per process); in any other run, do nothing.

    Raises:
        pytest.UsageError: if nbval is not of the series written for, or its comparison has changed.
    """
    if not replays_notebooks(config):
        return
    try:  # before nbval's plugin module is imported: another series may not have it
        require_releases((NBVAL,))
    except UpstreamChanged as error:  # a usage error: pytest prints the message, not a traceback
        raise pytest.UsageError(str(error)) from error
    from nbval.plugin import IPyNbCell

    if getattr(getattr(IPyNbCell, "compare_outputs", None), MARK, False):
        return
    try:
        original = original_compare_outputs(IPyNbCell)
    except NbvalChanged as error:
        raise pytest.UsageError(str(error)) from error
    IPyNbCell.compare_outputs = comparing_outputs(original)
