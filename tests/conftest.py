"""Shared fixtures. Test folders mirror the features: library/, tooling/,
translations/, book/ and exercises/; nbval replays chapters/ in the same run."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="session")
def root() -> Path:
    """The repository root."""
    return ROOT
