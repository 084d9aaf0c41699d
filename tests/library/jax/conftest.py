"""Fixtures of the JAX-only tests: ``x64`` switches on float64 for a test's own body. The
naive reference, the padding mask and the fast compilation of XLA come from
``tests/library/conftest.py``."""

from __future__ import annotations

import jax
import jax.experimental
import pytest


@pytest.fixture(scope="session")
def x64():
    """The context manager that enables float64, ``with x64(True): ...``: ``jax.enable_x64`` in
    current JAX, ``jax.experimental.enable_x64`` in the 0.4 series that ``pyproject.toml``
    still allows (``make test-versions``); each version has only one of them."""
    return jax.enable_x64 if hasattr(jax, "enable_x64") else jax.experimental.enable_x64
