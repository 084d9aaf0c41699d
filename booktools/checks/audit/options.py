"""The options of ``python -m booktools audit``, without the audit's imports (the command line reads them for
``audit`` and ``--help`` of it, so this module imports of booktools only the bar,
``booktools.configuration.bars.LIGHTHOUSE_BAR``, the default of ``--fail-under``).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from booktools.configuration.bars import LIGHTHOUSE_BAR

PRESETS = ("mobile", "desktop")  # Lighthouse's form factors, each page audited in both
TABLE_FILE = "table.md"  # the audit's table, in its report folder


def options(parser: argparse.ArgumentParser) -> None:
    """The options of ``python -m booktools audit``."""
    parser.add_argument("--page", action="append", default=[], help="only pages whose path has this (repeatable)")
    parser.add_argument("--preset", action="append", choices=PRESETS, help="only this preset (repeatable)")
    parser.add_argument("--fail-under", type=int, default=LIGHTHOUSE_BAR, help="exit 1 if a score is lower")
    parser.add_argument("--site", type=Path, default=None, help="the built site to serve (default: _build/html)")
    parser.add_argument(
        "--block", action="append", default=[], help="a URL pattern the page may not load (Lighthouse's, repeatable)"
    )


def defaults() -> dict[str, object]:
    """The options of ``python -m booktools audit`` when none is given: every page, preset and the bar."""
    parser = argparse.ArgumentParser()
    options(parser)
    return vars(parser.parse_args([]))


def no_option_given(args: argparse.Namespace) -> bool:
    """Whether the audit's options in ``args`` are all their defaults (the whole audit, at the bar)."""
    return all(getattr(args, name, None) == value for name, value in defaults().items())
