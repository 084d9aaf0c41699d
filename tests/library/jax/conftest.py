"""Fixtures for the unit tests of ``d2l_lib.jax``.

``reference_masked_softmax`` is a deliberately naive, loop-by-loop masked softmax in
NumPy float64 that the library is compared against; ``padding_mask`` marks the keys
past each valid length; ``x64`` switches on float64 for a test's own body. Figures are closed
after every test by the conftest one folder up.
"""

from __future__ import annotations

import os

# JAX compiles every operation for every new shape, and these tests call the library on many
# small inputs: most of their time goes into XLA's CPU compiler. Its expensive LLVM passes buy
# nothing for arrays of a few dozen numbers, so this process skips them. XLA reads XLA_FLAGS
# once, when it compiles its first program (if JAX has compiled nothing yet in this process);
# the variable is then restored, so that subprocesses, notebook kernels included, compile as usual.
_FAST_COMPILE = "--xla_backend_optimization_level=0 --xla_llvm_disable_expensive_passes=true"
_previous_flags = os.environ.get("XLA_FLAGS")
os.environ["XLA_FLAGS"] = f"{_previous_flags or ''} {_FAST_COMPILE}".strip()
try:
    import jax

    jax.block_until_ready(jax.jit(lambda x: x + 1)(1))
finally:
    if _previous_flags is None:
        del os.environ["XLA_FLAGS"]
    else:
        os.environ["XLA_FLAGS"] = _previous_flags

import jax.experimental  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402


@pytest.fixture(scope="session")
def x64():
    """The context manager that enables float64, ``with x64(True): ...``: ``jax.enable_x64`` in
    current JAX, ``jax.experimental.enable_x64`` in the 0.4 series that ``pyproject.toml``
    still allows (``make test-versions``); each version has only one of them."""
    return jax.enable_x64 if hasattr(jax, "enable_x64") else jax.experimental.enable_x64


def _reference_masked_softmax(X, valid_lens) -> np.ndarray:
    """Masked softmax by hand, in float64: softmax over the first ``l`` scores of each row,
    zeros after them, and an all-zero row when ``l`` is 0. ``valid_lens`` is None, 1-D or 2-D."""
    X = np.asarray(X, dtype=np.float64)
    batch_size, num_queries, num_keys = X.shape
    lens = None if valid_lens is None else np.asarray(valid_lens, dtype=np.float64)
    out = np.zeros_like(X)
    for b in range(batch_size):
        for i in range(num_queries):
            if lens is None:
                length = num_keys
            else:
                length = lens[b] if lens.ndim == 1 else lens[b, i]
            length = int(min(length, num_keys))
            if length > 0:
                row = X[b, i, :length]
                e = np.exp(row - row.max())
                out[b, i, :length] = e / e.sum()
    return out


@pytest.fixture(scope="session")
def reference_masked_softmax():
    """The naive float64 masked softmax (a function)."""
    return _reference_masked_softmax


def _padding_mask(shape, valid_lens) -> np.ndarray:
    """Boolean mask of ``shape`` (batch, queries, keys): True past each valid length."""
    batch_size, num_queries, _ = shape
    if valid_lens is None:
        return np.zeros(shape, dtype=bool)
    lens = np.asarray(valid_lens, dtype=np.float64).reshape(batch_size, -1, 1)
    return np.arange(shape[-1]) >= np.broadcast_to(lens, (batch_size, num_queries, 1))


@pytest.fixture(scope="session")
def padding_mask():
    """``padding_mask(shape, valid_lens)``: True where a key lies past the valid length."""
    return _padding_mask
