"""Fixtures of the JAX-only tests: ``x64`` switches on float64 for a test's own body, and on
a GPU float32 matrix products are computed in full float32. The naive reference, the padding
mask and the fast compilation of XLA come from ``tests/library/conftest.py``."""

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


@pytest.fixture(scope="session", autouse=True)
def full_float32_products_on_a_gpu():
    """On a GPU, JAX multiplies float32 matrices in TF32 by default (a 10-bit mantissa, which
    moves attention weights by about 1e-3); these tests compare the layers with float64 NumPy,
    so they ask for full float32 products there. On a CPU it changes nothing."""
    if jax.default_backend() != "gpu":
        yield
        return
    with jax.default_matmul_precision("float32"):
        yield
