"""How a replayed cell's figures are compared with the stored ones (the rule ``booktools.checks.nbval_plugin`` adds
to nbval, which compares a figure only by its ``text/plain``).

Every PNG a cell produces is compared with the stored one by
:func:`matplotlib.testing.compare.compare_images` (RMS tolerance ``booktools.configuration.bars.MAX_PIXEL_RMS``,
on 0-255 pixel values). On a mismatch the stored, fresh and difference images are written under
``_build/nbval-figures/``.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from matplotlib.testing.compare import compare_images
from matplotlib.testing.exceptions import ImageComparisonFailure

from booktools.configuration.bars import MAX_PIXEL_RMS
from booktools.project import Project

PROJECT = Project.here()  # pytest loads the plugin, and so this module, itself
ARTIFACTS = PROJECT.work_dir("nbval-figures")
PNG = "image/png"


def pngs(outputs: Iterable[dict[str, Any]]) -> list[str]:
    """The base64 PNGs of a cell's outputs, in order."""
    return [output["data"][PNG] for output in outputs if PNG in output.get("data", {})]


def compare_pngs(stored: list[str], fresh: list[str], name: str, tolerance: float = MAX_PIXEL_RMS) -> list[str]:
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
                f"(see {PROJECT.relative(actual)} and {result['diff']})"
            )
        else:
            expected.unlink()
            actual.unlink()
    return problems
