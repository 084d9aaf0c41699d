"""``masked_softmax`` in JAX only: D2L's fill in float16, uint8 and NumPy inputs, ``jax.jit``
with traced and fixed lengths, and gradients against finite differences (``check_grads``).

What every framework shares is in ``tests/library/test_masked_softmax.py``. float64 needs
``jax.enable_x64``, which the tests that use it switch on for their own body (the ``x64``
fixture).
"""

from __future__ import annotations

import math

import jax
import numpy as np
import pytest
from jax import numpy as jnp
from jax.test_util import check_grads

from d2l_lib import jax as d2l


def _randn(shape, seed=0, dtype=jnp.float32, scale=1.0):
    """Standard normal scores from NumPy: test data that costs JAX no compilation."""
    return jnp.asarray((np.random.default_rng(seed).standard_normal(shape) * scale).astype(dtype))


# ------------------------------------------------------------------ masking


def test_float16_where_d2l_fill_value_overflows():
    X = jnp.asarray(np.random.default_rng(3).uniform(size=(2, 2, 4)), dtype=jnp.float16)
    everything = jnp.ones((2, 2, 4), dtype=bool)
    assert np.isneginf(np.asarray(jnp.where(everything, -1e6, X))).all()  # what D2L's -1e6 fill becomes
    weights = d2l.masked_softmax(X, jnp.array([2, 3]))
    assert weights.dtype == jnp.float16
    weights = np.asarray(weights)
    assert np.isfinite(weights).all()
    assert (weights[0, :, 2:] == 0).all() and (weights[1, :, 3:] == 0).all()


# ------------------------------------------------------------------ lengths


def test_uint8_lengths_are_not_clipped_in_their_own_dtype():
    """Clipping a uint8 length to 300 keys in uint8 would wrap 300 to 44."""
    weights = d2l.masked_softmax(jnp.zeros((1, 1, 300)), jnp.array([200], dtype=jnp.uint8))
    assert int((weights > 0).sum()) == 200


def test_numpy_scores():
    X = np.asarray(_randn((2, 2, 5)))
    np.testing.assert_array_equal(d2l.masked_softmax(X, [1, 4]), d2l.masked_softmax(jnp.asarray(X), [1, 4]))


@pytest.mark.parametrize("dtype, num_keys, length", [(jnp.bfloat16, 512, 300), (jnp.float16, 4096, 3000)])
def test_low_precision_float_lengths_count_every_key_under_jit(dtype, num_keys, length):
    """Counting keys in bfloat16 (float16) is exact only up to 256 (2048); traced lengths become int32 first."""
    lens = jnp.array([length], dtype=dtype)
    traced = jax.jit(d2l.masked_softmax)(jnp.zeros((1, 1, num_keys)), lens)
    assert int((traced > 0).sum()) == length


# ------------------------------------------------------------------ no mutation
def test_does_not_mutate_numpy_scores_or_lengths():
    X = np.asarray(_randn((2, 3, 4)))
    lens = np.array([1, 2])
    X_before, lens_before = X.copy(), lens.copy()
    for valid_lens in (lens, lens.astype(np.float32), np.array([[0, 1, 2], [3, 4, 5]])):
        d2l.masked_softmax(X, valid_lens)
    np.testing.assert_array_equal(X, X_before)
    np.testing.assert_array_equal(lens, lens_before)


# ------------------------------------------------------------------ jax.jit
@pytest.mark.parametrize("lens", [None, [2, 3], [[1, 3], [0, 9]], [2.0, math.inf]], ids=["none", "1-D", "2-D", "float"])
def test_jit_with_traced_lengths_equals_eager(lens):
    X = _randn((2, 2, 4))
    eager = d2l.masked_softmax(X, None if lens is None else jnp.array(lens))
    jitted = jax.jit(d2l.masked_softmax)(X, None if lens is None else jnp.array(lens))
    np.testing.assert_allclose(jitted, eager, rtol=1e-6, atol=0)
    assert ((np.asarray(jitted) == 0) == (np.asarray(eager) == 0)).all()


def test_jit_with_lengths_fixed_at_trace_time():
    X = _randn((2, 2, 4))
    jitted = jax.jit(lambda x: d2l.masked_softmax(x, [1, 3]))
    np.testing.assert_allclose(jitted(X), d2l.masked_softmax(X, [1, 3]), rtol=1e-6, atol=0)


def test_jit_with_int64_lengths_past_int32(x64):
    with x64(True):
        X = _randn((1, 2, 4))
        lens = jnp.array([10**12], dtype=jnp.int64)
        np.testing.assert_allclose(jax.jit(d2l.masked_softmax)(X, lens), jax.nn.softmax(X, -1), rtol=1e-6)


# ------------------------------------------------------------------ gradients
@pytest.mark.parametrize("lens", [[0, 2], [[0, 2, 5], [1, 3, 7]], [5, 5]], ids=["1-D", "2-D", "full"])
def test_gradients_match_finite_differences(lens, x64):
    with x64(True):
        X = _randn((2, 3, 5), dtype=jnp.float64)
        lens = jnp.array(lens)
        check_grads(lambda x: d2l.masked_softmax(x, lens), (X,), order=1, modes=["fwd", "rev"])


def test_second_order_gradients_match_finite_differences(x64):
    with x64(True):
        lens = jnp.array([[0, 2, 5], [1, 3, 7]])
        check_grads(
            lambda x: d2l.masked_softmax(x, lens), (_randn((2, 3, 5), dtype=jnp.float64),), order=2, modes=["rev"]
        )
