"""``masked_softmax`` (JAX): values, masking, dtypes, lengths, no mutation, ``jax.jit`` and gradients.

Errors are in ``test_errors.py``; random shapes, lengths and dtypes in ``test_properties.py``.
float64 needs ``jax.enable_x64``, which the tests that use it switch on for their own body (the
``x64`` fixture).
"""

from __future__ import annotations

import math

import jax
import numpy as np
import pytest
from jax import numpy as jnp
from jax.test_util import check_grads

from d2l_lib import jax as d2l

DTYPES = [jnp.float16, jnp.bfloat16, jnp.float32]
# How far the sum of a row's weights may be from 1 (half precision rounds each weight).
SUM_TOLERANCE = {jnp.float16: 4e-3, jnp.bfloat16: 2e-2, jnp.float32: 1e-5, jnp.float64: 1e-12}


def _randn(shape, seed=0, dtype=jnp.float32, scale=1.0):
    """Standard normal scores from NumPy: test data that costs JAX no compilation."""
    return jnp.asarray((np.random.default_rng(seed).standard_normal(shape) * scale).astype(dtype))


# ------------------------------------------------------------------ values
def test_values_by_hand(x64):
    with x64(True):
        X = jnp.array([[[1.0, 2.0, 3.0, 4.0], [0.0, 0.0, 5.0, 5.0]]], dtype=jnp.float64)
        weights = np.asarray(d2l.masked_softmax(X, jnp.array([2])))
    e1, e2 = math.exp(1.0), math.exp(2.0)
    expected = np.array([[[e1 / (e1 + e2), e2 / (e1 + e2), 0.0, 0.0], [0.5, 0.5, 0.0, 0.0]]])
    assert weights.dtype == np.float64
    np.testing.assert_allclose(weights, expected, rtol=1e-14, atol=0)


def test_values_by_hand_with_one_length_per_query(x64):
    with x64(True):
        X = jnp.array([[[1.0, 2.0, 3.0], [1.0, 2.0, 3.0]]], dtype=jnp.float64)
        weights = np.asarray(d2l.masked_softmax(X, jnp.array([[1, 3]])))
    e = [math.exp(v) for v in (1.0, 2.0, 3.0)]
    np.testing.assert_allclose(weights, [[[1.0, 0.0, 0.0], [x / sum(e) for x in e]]], rtol=1e-14, atol=0)


def test_chapter_examples(padding_mask):
    """masked_softmax(uniform (2, 2, 4), [2, 3]) and the 2-D lengths [[1, 3], [2, 4]]."""
    X = jnp.asarray(np.random.default_rng(0).uniform(size=(2, 2, 4)), dtype=jnp.float32)
    for lens in (jnp.array([2, 3]), jnp.array([[1, 3], [2, 4]])):
        weights = np.asarray(d2l.masked_softmax(X, lens))
        padding = padding_mask(X.shape, lens)
        assert (weights[padding] == 0).all()
        assert (weights[~padding] > 0).all()
        np.testing.assert_allclose(weights.sum(-1), np.ones((2, 2)), rtol=1e-6)


@pytest.mark.parametrize("lens", [[3, 1, 5], [[1, 2, 3, 4], [5, 0, 2, 1], [4, 4, 4, 4]]], ids=["1-D", "2-D"])
def test_matches_the_naive_reference(lens, reference_masked_softmax, x64):
    with x64(True):
        X = _randn((3, 4, 5), seed=1, dtype=jnp.float64)
        weights = np.asarray(d2l.masked_softmax(X, jnp.array(lens)))
    np.testing.assert_allclose(weights, reference_masked_softmax(X, lens), rtol=1e-12, atol=1e-15)


def test_none_is_a_plain_softmax_over_the_last_axis():
    X = _randn((2, 3, 5))
    np.testing.assert_array_equal(d2l.masked_softmax(X, None), jax.nn.softmax(X, axis=-1))


@pytest.mark.parametrize("dtype", DTYPES)
def test_shape_and_dtype_are_kept(dtype):
    X = _randn((2, 3, 5), dtype=dtype)
    for lens in (None, jnp.array([1, 4]), jnp.array([[1, 2, 3], [0, 5, 9]])):
        weights = d2l.masked_softmax(X, lens)
        assert weights.shape == X.shape and weights.dtype == dtype


def test_float64_is_kept_where_enabled(x64):
    with x64(True):
        weights = d2l.masked_softmax(_randn((2, 3, 5), dtype=jnp.float64), jnp.array([1, 4]))
        assert weights.dtype == jnp.float64


# ------------------------------------------------------------------ masking
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("scale", [1.0, 1e3, "huge"], ids=["unit", "1e3", "half-dtype-max"])
def test_exact_zeros_past_the_length_in_every_dtype(dtype, scale, padding_mask):
    """Exact zeros, no overflow, no NaN, even for scores of half the dtype's largest magnitude
    (float16 cannot hold D2L's -1e6). Half, because the padding is filled with the dtype's
    minimum: valid scores at that very minimum would tie with their padding."""
    X = np.asarray(_randn((3, 4, 6), seed=2))
    X = np.sign(X) * float(jnp.finfo(dtype).max) / 2 if scale == "huge" else X * scale
    X = jnp.asarray(X.astype(dtype))
    lens = np.array([[0, 1, 3, 6], [2, 5, 7, 4], [6, 6, 1, 0]])
    weights = np.asarray(d2l.masked_softmax(X, lens), dtype=np.float64)
    padding = padding_mask(X.shape, lens)
    assert np.isfinite(weights).all()
    assert (weights[padding] == 0).all()
    assert (weights >= 0).all()
    sums = weights.sum(-1)
    has_keys = lens > 0
    np.testing.assert_allclose(sums[has_keys], 1.0, rtol=0, atol=SUM_TOLERANCE[dtype])
    assert (sums[~has_keys] == 0).all()


def test_float16_where_d2l_fill_value_overflows():
    X = jnp.asarray(np.random.default_rng(3).uniform(size=(2, 2, 4)), dtype=jnp.float16)
    everything = jnp.ones((2, 2, 4), dtype=bool)
    assert np.isneginf(np.asarray(jnp.where(everything, -1e6, X))).all()  # what D2L's -1e6 fill becomes
    weights = d2l.masked_softmax(X, jnp.array([2, 3]))
    assert weights.dtype == jnp.float16
    weights = np.asarray(weights)
    assert np.isfinite(weights).all()
    assert (weights[0, :, 2:] == 0).all() and (weights[1, :, 3:] == 0).all()


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("lens", [[0, 2], [[0, 3], [0, 0]]], ids=["1-D", "2-D"])
def test_length_zero_gives_an_all_zero_row(dtype, lens):
    weights = np.asarray(d2l.masked_softmax(_randn((2, 2, 4), dtype=dtype), jnp.array(lens)), dtype=np.float32)
    zero_rows = np.broadcast_to(np.array(lens).reshape(2, -1), (2, 2)) == 0
    assert (weights[zero_rows] == 0).all()
    assert not np.isnan(weights).any()
    assert (weights[~zero_rows].sum(-1) > 0.99).all()


def test_length_zero_gives_a_zero_output_row():
    queries, keys, values = _randn((2, 3, 4), 1), _randn((2, 5, 4), 2), _randn((2, 5, 6), 3) + 10
    out, _ = d2l.DotProductAttention(dropout=0.0).apply({}, queries, keys, values, jnp.array([[0, 2, 5], [1, 0, 3]]))
    out = np.asarray(out)
    assert (out[0, 0] == 0).all() and (out[1, 1] == 0).all()
    assert (np.abs(out[0, 1]) > 0).all() and (np.abs(out[1, 0]) > 0).all()


@pytest.mark.parametrize("length", [4, 5, 10**9, 10**12, math.inf], ids=["keys", "keys+1", "1e9", "1e12-int64", "inf"])
def test_length_at_or_past_the_number_of_keys_masks_nothing(length):
    """NumPy int64 lengths beyond int32 must not wrap around on the way into JAX."""
    X = _randn((2, 3, 4))
    # Compiled, as the library's softmax is: JAX 0.4 runs jax.nn.softmax op by op outside jit,
    # and that rounds some weights one float32 ulp apart from the compiled one.
    expected = jax.jit(jax.nn.softmax, static_argnames="axis")(X, axis=-1)
    np.testing.assert_array_equal(d2l.masked_softmax(X, np.array([length, length])), expected)
    np.testing.assert_array_equal(d2l.masked_softmax(X, np.full((2, 3), length)), expected)


def test_padding_never_gets_weight_whatever_its_scores():
    """NaN, inf or huge scores in the padding do not leak into the weights."""
    X = _randn((2, 2, 5))
    dirty = X.at[0, :, 2:].set(jnp.nan).at[1, 0, 3:].set(jnp.inf).at[1, 1, 3:].set(1e30)
    clean = X.at[0, :, 2:].set(0.0).at[1, :, 3:].set(0.0)
    weights = d2l.masked_softmax(dirty, jnp.array([2, 3]))
    np.testing.assert_array_equal(weights, d2l.masked_softmax(clean, jnp.array([2, 3])))
    assert np.isfinite(np.asarray(weights)).all()


def test_no_weight_leaks_into_padding_when_all_valid_scores_are_minus_inf():
    X = jnp.array([[[-jnp.inf, -jnp.inf, 0.5, 0.3]]])
    assert (np.asarray(d2l.masked_softmax(X, jnp.array([2])))[0, 0, 2:] == 0).all()


# ------------------------------------------------------------------ lengths
@pytest.mark.parametrize("dtype", [jnp.float32, jnp.float16, jnp.bfloat16, np.float64], ids=str)
def test_integral_float_lengths_equal_integer_lengths(dtype):
    """Old D2L code passes float lengths."""
    X = _randn((2, 3, 6))
    for lens in ([2, 5], [[0, 3, 6], [1, 2, 9]]):
        expected = d2l.masked_softmax(X, jnp.array(lens))
        lengths = np.array(lens, dtype=dtype) if dtype is np.float64 else jnp.array(lens, dtype=dtype)
        np.testing.assert_array_equal(d2l.masked_softmax(X, lengths), expected)


@pytest.mark.parametrize(
    "dtype", [jnp.int32, jnp.int16, jnp.int8, jnp.uint8, jnp.uint16, jnp.uint32, np.int64], ids=str
)
def test_integer_length_dtypes(dtype):
    X = _randn((2, 2, 5))
    lengths = np.array([1, 4], dtype=dtype) if dtype is np.int64 else jnp.array([1, 4], dtype=dtype)
    np.testing.assert_array_equal(d2l.masked_softmax(X, lengths), d2l.masked_softmax(X, jnp.array([1, 4])))


def test_uint8_lengths_are_not_clipped_in_their_own_dtype():
    """Clipping a uint8 length to 300 keys in uint8 would wrap 300 to 44."""
    weights = d2l.masked_softmax(jnp.zeros((1, 1, 300)), jnp.array([200], dtype=jnp.uint8))
    assert int((weights > 0).sum()) == 200


def test_lengths_as_a_list_a_tuple_and_a_numpy_array():
    X = _randn((2, 2, 5))
    expected = d2l.masked_softmax(X, jnp.array([1, 4]))
    for lens in ([1, 4], (1, 4), np.array([1, 4])):
        np.testing.assert_array_equal(d2l.masked_softmax(X, lens), expected)


def test_numpy_scores():
    X = np.asarray(_randn((2, 2, 5)))
    np.testing.assert_array_equal(d2l.masked_softmax(X, [1, 4]), d2l.masked_softmax(jnp.asarray(X), [1, 4]))


@pytest.mark.parametrize("dtype, num_keys, length", [(jnp.bfloat16, 512, 300), (jnp.float16, 4096, 3000)])
def test_low_precision_float_lengths_count_every_key(dtype, num_keys, length):
    """Counting keys in bfloat16 (float16) is exact only up to 256 (2048); lengths become int32 first."""
    lens = jnp.array([length], dtype=dtype)
    assert int((d2l.masked_softmax(jnp.zeros((1, 1, num_keys)), lens) > 0).sum()) == length
    traced = jax.jit(d2l.masked_softmax)(jnp.zeros((1, 1, num_keys)), lens)
    assert int((traced > 0).sum()) == length
    assert int(d2l.mask_from_valid_lens(lens, 1, num_keys).sum()) == length


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


def test_gradient_is_zero_past_the_length_and_that_of_the_unpadded_softmax(padding_mask, x64):
    """Within the length, the gradient of sum(softmax(row) * u) is s * (u - s.u), s the row's softmax."""
    with x64(True):
        X = _randn((2, 3, 5), seed=4, dtype=jnp.float64)
        upstream = np.asarray(_randn((2, 3, 5), seed=5, dtype=jnp.float64))
        lens = jnp.array([[0, 2, 5], [1, 3, 9]])
        grad = np.asarray(jax.grad(lambda x: (d2l.masked_softmax(x, lens) * upstream).sum())(X))
    assert (grad[padding_mask(X.shape, lens)] == 0).all()
    X = np.asarray(X)
    for b in range(2):
        for i in range(3):
            length = min(int(lens[b, i]), 5)
            if length == 0:
                continue
            s = np.exp(X[b, i, :length] - X[b, i, :length].max())
            s /= s.sum()
            u = upstream[b, i, :length]
            np.testing.assert_allclose(grad[b, i, :length], s * (u - s @ u), rtol=1e-10, atol=1e-15)


@pytest.mark.parametrize("dtype", DTYPES)
def test_gradient_in_low_precision_is_finite_and_zero_past_the_length(dtype, padding_mask):
    X = _randn((2, 3, 5), dtype=dtype, scale=100.0)
    upstream = _randn((2, 3, 5), seed=1, dtype=dtype)
    lens = jnp.array([[0, 2, 5], [1, 3, 4]])
    grad = jax.jit(jax.grad(lambda x: (d2l.masked_softmax(x, lens) * upstream).astype(jnp.float32).sum()))(X)
    grad = np.asarray(grad, dtype=np.float32)
    assert np.isfinite(grad).all()
    assert (grad[padding_mask(X.shape, lens)] == 0).all()
