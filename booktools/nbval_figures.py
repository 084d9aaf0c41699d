"""A pytest plugin that makes nbval compare figures, not only their text.

nbval compares a figure's ``text/plain`` (``<Figure size 250x250 with 2 Axes>``)
and skips ``image/png``, so a heatmap that changes would pass. This plugin wraps
nbval's output comparison: after nbval's own checks, every PNG a cell produces is
compared with the stored one by :func:`matplotlib.testing.compare.compare_images`
(RMS tolerance :data:`TOLERANCE`, on 0-255 pixel values). On a mismatch the
stored, fresh and difference images are written under ``_build/nbval-figures/``.

Enabled with ``-p booktools.nbval_figures`` (see ``pyproject.toml``).

nbval 0.11 has no hook for this: its pytest plugin declares no hook specifications,
``--nbval-sanitize-with`` only rewrites text, and ``--nbdime`` compares images byte
for byte. So this plugin replaces the method ``nbval.plugin.IPyNbCell.compare_outputs``,
and first checks that the method is there with the signature it was written
for (:data:`EXPECTED_SIGNATURE`): if an nbval upgrade changes it, the test run
stops at once with a message saying so, rather than comparing figures no more.
"""

from __future__ import annotations

import base64
import inspect
import re
import typing
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pytest
from matplotlib.testing.compare import compare_images
from matplotlib.testing.exceptions import ImageComparisonFailure

from booktools.book import ROOT

TOLERANCE = 2.0
ARTIFACTS = ROOT / "_build" / "nbval-figures"
PNG = "image/png"
EXPECTED_SIGNATURE = "(self, test, ref, skip_compare=None)"
# What the replacement uses of a cell besides the method: nbval 0.11's attributes.
CELL_ATTRIBUTES = ("comparison_traceback", "fspath", "name")

CompareOutputs = Callable[[Any, list[dict[str, Any]], list[dict[str, Any]], Any], bool]


class NbvalChanged(RuntimeError):
    """nbval's output comparison is not what this plugin was written for."""


def _pngs(outputs: Iterable[dict[str, Any]]) -> list[str]:
    return [output["data"][PNG] for output in outputs if PNG in output.get("data", {})]


def compare_pngs(stored: list[str], fresh: list[str], name: str, tolerance: float = TOLERANCE) -> list[str]:
    """Compare two lists of base64 PNGs; return a description of each mismatch."""
    if len(stored) != len(fresh):
        return [f"the cell made {len(fresh)} image(s), the notebook stores {len(stored)}"]
    problems = []
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    for index, (want, have) in enumerate(zip(stored, fresh)):
        if want == have:
            continue
        stem = ARTIFACTS / f"{re.sub(r'[^A-Za-z0-9_.-]+', '_', name)}-{index}"
        expected, actual = Path(f"{stem}-expected.png"), Path(f"{stem}-actual.png")
        expected.write_bytes(base64.b64decode(want))
        actual.write_bytes(base64.b64decode(have))
        try:
            result = compare_images(str(expected), str(actual), tol=tolerance, in_decorator=True)
        except ImageComparisonFailure as error:  # e.g. a different size
            problems.append(f"image {index} differs from the stored one: {error}")
            continue
        if result is not None:
            problems.append(
                f"image {index} differs from the stored one: RMS {result['rms']:.2f} > {tolerance} "
                f"(see {actual.relative_to(ROOT)} and {result['diff']})"
            )
        else:
            expected.unlink()
            actual.unlink()
    return problems


def original_compare_outputs(cell_class: Any) -> CompareOutputs:
    """Return nbval's ``compare_outputs`` of ``cell_class``, checking it is the one this plugin wraps.

    Raises:
        NbvalChanged: if the method is missing or its signature is not :data:`EXPECTED_SIGNATURE`.
    """
    import nbval

    version = getattr(nbval, "__version__", "?")
    advice = (
        f"booktools.nbval_figures was written for nbval 0.11's IPyNbCell.compare_outputs"
        f"{EXPECTED_SIGNATURE}; without it nbval would stop comparing figures. Pin nbval==0.11.0 "
        "(requirements.txt) or update booktools/nbval_figures.py for the new nbval"
    )
    method = getattr(cell_class, "compare_outputs", None)
    if not callable(method):
        raise NbvalChanged(
            f"nbval {version}: {getattr(cell_class, '__name__', cell_class)} has no method compare_outputs. {advice}."
        )
    found = str(inspect.signature(method))
    if found != EXPECTED_SIGNATURE:
        raise NbvalChanged(f"nbval {version}: IPyNbCell.compare_outputs{found} has changed. {advice}.")
    return typing.cast(CompareOutputs, method)


def figure_comparing(original: CompareOutputs) -> CompareOutputs:
    """Return ``original`` followed by the comparison of the cell's figures."""

    def compare_outputs(
        self: Any, test: list[dict[str, Any]], ref: list[dict[str, Any]], skip_compare: Any = None
    ) -> bool:
        if not original(self, test, ref, skip_compare):
            return False
        missing = [name for name in CELL_ATTRIBUTES if not hasattr(self, name)]
        if missing:
            raise NbvalChanged(
                f"nbval's cells no longer have {', '.join(missing)}; "
                "update booktools/nbval_figures.py for the new nbval"
            )
        problems = compare_pngs(_pngs(ref), _pngs(test), f"{Path(str(self.fspath)).stem}-{self.name}")
        if problems:
            self.comparison_traceback.extend(problems)
            return False
        return True

    setattr(compare_outputs, "compares_figures", True)  # noqa: B010 - an attribute functions do not declare
    return compare_outputs


def pytest_configure(config: pytest.Config) -> None:
    """Replace nbval's output comparison by one that compares figures too (once per process)."""
    from nbval.plugin import IPyNbCell

    if getattr(getattr(IPyNbCell, "compare_outputs", None), "compares_figures", False):
        return
    try:
        original = original_compare_outputs(IPyNbCell)
    except NbvalChanged as error:  # a usage error: pytest prints the message, not a traceback
        raise pytest.UsageError(str(error)) from error
    IPyNbCell.compare_outputs = figure_comparing(original)
