"""A pytest plugin that makes nbval compare figures, not only their text.

nbval compares a figure's ``text/plain`` (``<Figure size 250x250 with 2 Axes>``)
and skips ``image/png``, so a heatmap that changes would pass. This plugin wraps
nbval's output comparison: after nbval's own checks, every PNG a cell produces is
compared with the stored one by :func:`matplotlib.testing.compare.compare_images`
(RMS tolerance :data:`TOLERANCE`, on 0-255 pixel values). On a mismatch the
stored, fresh and difference images are written under ``_build/nbval-figures/``.

Enabled with ``-p booktools.nbval_figures`` (see ``pyproject.toml``).
"""

from __future__ import annotations

import base64
import re
from collections.abc import Iterable
from pathlib import Path

from matplotlib.testing.compare import compare_images
from matplotlib.testing.exceptions import ImageComparisonFailure

from booktools.book import ROOT

TOLERANCE = 2.0
ARTIFACTS = ROOT / "_build" / "nbval-figures"
PNG = "image/png"


def _pngs(outputs: Iterable[dict]) -> list[str]:
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


def pytest_configure(config) -> None:
    from nbval.plugin import IPyNbCell

    if getattr(IPyNbCell.compare_outputs, "compares_figures", False):
        return
    original = IPyNbCell.compare_outputs

    def compare_outputs(self, test, ref, skip_compare=None):
        same = original(self, test, ref, skip_compare)
        if not same:
            return False
        problems = compare_pngs(_pngs(ref), _pngs(test), f"{Path(self.fspath).stem}-{self.name}")
        if problems:
            self.comparison_traceback.extend(problems)
            return False
        return True

    compare_outputs.compares_figures = True
    IPyNbCell.compare_outputs = compare_outputs
