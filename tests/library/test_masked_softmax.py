"""``masked_softmax`` in every framework: values, masking, dtypes, lengths and gradients
(issue 5, item 1).

Errors are in ``test_errors.py``; random shapes, lengths and dtypes in ``test_properties.py``;
what only one framework has (autograd checks, devices and views in PyTorch, ``jax.jit``,
``tf.function``, each one's fill of D2L's -1e6) in ``<framework>/test_masked_softmax.py``.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

DTYPES = ["float16", "bfloat16", "float32", "float64"]
# How far the sum of a row's weights may be from 1 (half precision rounds each weight).
SUM_TOLERANCE = {"float16": 4e-3, "bfloat16": 2e-2, "float32": 1e-5, "float64": 1e-12}


# ------------------------------------------------------------------ values
def test_values_by_hand(lib):
    with lib.precision("float64"):
        X = lib.array([[[1.0, 2.0, 3.0, 4.0], [0.0, 0.0, 5.0, 5.0]]], "float64")
        weights = lib.d2l.masked_softmax(X, lib.array([2]))
        assert lib.dtype_name(weights) == "float64"
        weights = lib.numpy(weights)
    e1, e2 = math.exp(1.0), math.exp(2.0)
    expected = [[[e1 / (e1 + e2), e2 / (e1 + e2), 0.0, 0.0], [0.5, 0.5, 0.0, 0.0]]]
    np.testing.assert_allclose(weights, expected, rtol=1e-14, atol=0)


def test_values_by_hand_with_one_length_per_query(lib):
    with lib.precision("float64"):
        X = lib.array([[[1.0, 2.0, 3.0], [1.0, 2.0, 3.0]]], "float64")
        weights = lib.numpy(lib.d2l.masked_softmax(X, lib.array([[1, 3]])))
    e = [math.exp(v) for v in (1.0, 2.0, 3.0)]
    np.testing.assert_allclose(weights, [[[1.0, 0.0, 0.0], [x / sum(e) for x in e]]], rtol=1e-14, atol=0)


def test_chapter_examples(lib, padding_mask):
    """masked_softmax of uniform scores (2, 2, 4) with lengths [2, 3] and the 2-D lengths [[1, 3], [2, 4]]."""
    X = lib.array(np.random.default_rng(0).uniform(size=(2, 2, 4)), "float32")
    for lens in ([2, 3], [[1, 3], [2, 4]]):
        weights = lib.numpy(lib.d2l.masked_softmax(X, lib.array(lens)))
        padding = padding_mask((2, 2, 4), lens)
        assert (weights[padding] == 0).all()
        assert (weights[~padding] > 0).all()
        np.testing.assert_allclose(weights.sum(-1), np.ones((2, 2)), rtol=1e-6)


@pytest.mark.parametrize("lens", [[3, 1, 5], [[1, 2, 3, 4], [5, 0, 2, 1], [4, 4, 4, 4]]], ids=["1-D", "2-D"])
def test_matches_the_naive_reference(lib, lens, reference_masked_softmax):
    with lib.precision("float64"):
        X = lib.randn((3, 4, 5), seed=1, dtype="float64")
        weights = lib.numpy(lib.d2l.masked_softmax(X, lib.array(lens)))
    np.testing.assert_allclose(weights, reference_masked_softmax(lib.numpy(X), lens), rtol=1e-12, atol=1e-15)


def test_none_is_a_plain_softmax_over_the_last_axis(lib):
    X = lib.randn((2, 3, 5))
    weights, softmax = lib.numpy(lib.d2l.masked_softmax(X, None)), lib.numpy(lib.softmax(X))
    np.testing.assert_allclose(weights, softmax, rtol=lib.unmasked_rtol, atol=0)  # exact but in JAX 0.4


@pytest.mark.parametrize("dtype", DTYPES)
def test_shape_and_dtype_are_kept(lib, dtype):
    with lib.precision(dtype):
        X = lib.randn((2, 3, 5), dtype=dtype)
        for lens in (None, [1, 4], [[1, 2, 3], [0, 5, 9]]):
            weights = lib.d2l.masked_softmax(X, None if lens is None else lib.array(lens))
            assert tuple(weights.shape) == (2, 3, 5) and lib.dtype_name(weights) == dtype


# ------------------------------------------------------------------ masking
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("scale", [1.0, 1e3, "huge"], ids=["unit", "1e3", "half-dtype-max"])
def test_exact_zeros_past_the_length_in_every_dtype(lib, dtype, scale, padding_mask):
    """Exact zeros, no overflow, no NaN, even for scores of half the dtype's largest magnitude
    (float16 cannot hold D2L's -1e6). Half, because the padding is filled with the dtype's
    minimum: a row whose valid scores all sit at that very minimum would tie with its padding
    (a known limit of the finite fill)."""
    X = np.random.default_rng(2).standard_normal((3, 4, 6))
    largest = {"float16": 65504.0, "bfloat16": 3.3895313892515355e38, "float32": 3.4028234663852886e38}
    X = np.sign(X) * largest.get(dtype, np.finfo(np.float64).max) / 2 if scale == "huge" else X * scale
    lens = [[0, 1, 3, 6], [2, 5, 7, 4], [6, 6, 1, 0]]
    with lib.precision(dtype):
        weights = lib.numpy(lib.d2l.masked_softmax(lib.array(X, dtype), lib.array(lens)))
    assert np.isfinite(weights).all()
    assert (weights[padding_mask(X.shape, lens)] == 0).all()
    assert (weights >= 0).all()
    sums = weights.sum(-1)
    has_keys = np.array(lens) > 0
    np.testing.assert_allclose(sums[has_keys], 1.0, rtol=0, atol=SUM_TOLERANCE[dtype])
    assert (sums[~has_keys] == 0).all()


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("lens", [[0, 2], [[0, 3], [0, 0]]], ids=["1-D", "2-D"])
def test_length_zero_gives_an_all_zero_row(lib, dtype, lens):
    with lib.precision(dtype):
        weights = lib.numpy(lib.d2l.masked_softmax(lib.randn((2, 2, 4), dtype=dtype), lib.array(lens)))
    zero_rows = np.broadcast_to(np.array(lens).reshape(2, -1), (2, 2)) == 0
    assert (weights[zero_rows] == 0).all()
    assert not np.isnan(weights).any()
    assert (weights[~zero_rows].sum(-1) > 0.99).all()


def test_length_zero_gives_a_zero_output_row(lib):
    queries, keys = lib.randn((2, 3, 4), seed=1), lib.randn((2, 5, 4), seed=2)
    values = lib.randn((2, 5, 6), seed=3) + 10
    out, _ = lib.layer("dot", 0.0)(queries, keys, values, lib.array([[0, 2, 5], [1, 0, 3]]))
    out = lib.numpy(out)
    assert (out[0, 0] == 0).all() and (out[1, 1] == 0).all()
    assert (np.abs(out[0, 1]) > 0).all() and (np.abs(out[1, 0]) > 0).all()


@pytest.mark.parametrize("length", [4, 5, 10**9, 10**12, math.inf], ids=["keys", "keys+1", "1e9", "1e12-int64", "inf"])
def test_length_at_or_past_the_number_of_keys_masks_nothing(lib, length):
    """1-D and 2-D lengths; int64 lengths beyond int32 must not wrap around."""
    X = lib.randn((2, 3, 4))
    expected = lib.numpy(lib.softmax(X))
    dtype = "float32" if length == math.inf else "int64"
    for lens in (np.full(2, length), np.full((2, 3), length)):
        np.testing.assert_array_equal(lib.numpy(lib.d2l.masked_softmax(X, lib.array(lens, dtype))), expected)


def test_padding_never_gets_weight_whatever_its_scores(lib):
    """NaN, inf or huge scores in the padding do not leak into the weights."""
    X = np.random.default_rng(9).standard_normal((2, 2, 5)).astype(np.float32)
    clean = X.copy()
    X[0, :, 2:] = np.nan
    X[1, 0, 3:] = np.inf
    X[1, 1, 3:] = 1e30
    clean[0, :, 2:] = clean[1, :, 3:] = 0.0
    weights = lib.numpy(lib.d2l.masked_softmax(lib.array(X), lib.array([2, 3])))
    np.testing.assert_array_equal(weights, lib.numpy(lib.d2l.masked_softmax(lib.array(clean), lib.array([2, 3]))))
    assert np.isfinite(weights).all()


def test_no_weight_leaks_into_padding_when_all_valid_scores_are_minus_inf(lib):
    X = lib.array([[[-math.inf, -math.inf, 0.5, 0.3]]], "float32")
    assert (lib.numpy(lib.d2l.masked_softmax(X, lib.array([2])))[0, 0, 2:] == 0).all()


# ------------------------------------------------------------------ lengths
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
def test_integral_float_lengths_equal_integer_lengths(lib, dtype):
    """Old D2L code passes float lengths."""
    X = lib.randn((2, 3, 6))
    for lens in ([2, 5], [[0, 3, 6], [1, 2, 9]]):
        expected = lib.numpy(lib.d2l.masked_softmax(X, lib.array(lens)))
        np.testing.assert_array_equal(lib.numpy(lib.d2l.masked_softmax(X, lib.array(lens, dtype))), expected)


def test_integer_length_dtypes(lib):
    """Every integer dtype of the framework (``lib.int_dtypes``) gives the same weights."""
    X = lib.randn((2, 2, 5))
    expected = lib.numpy(lib.d2l.masked_softmax(X, lib.array([1, 4])))
    for dtype in lib.int_dtypes:
        got = lib.numpy(lib.d2l.masked_softmax(X, lib.array([1, 4], dtype)))
        np.testing.assert_array_equal(got, expected, err_msg=dtype)


@pytest.mark.parametrize(
    "lens", [[1, 4], (1, 4), np.array([1, 4]), np.array([1.0, 4.0])], ids=["list", "tuple", "int-array", "float-array"]
)
def test_lengths_as_python_sequences_and_numpy_arrays(lib, lens):
    X = lib.randn((2, 2, 5))
    np.testing.assert_array_equal(
        lib.numpy(lib.d2l.masked_softmax(X, lens)), lib.numpy(lib.d2l.masked_softmax(X, lib.array([1, 4])))
    )


@pytest.mark.parametrize("dtype, num_keys, length", [("bfloat16", 512, 300), ("float16", 4096, 3000)])
def test_low_precision_float_lengths_count_every_key(lib, dtype, num_keys, length):
    """Counting keys in bfloat16 (float16) is exact only up to 256 (2048): the lengths are
    compared as integers."""
    lens = lib.array([length], dtype)
    weights = lib.d2l.masked_softmax(lib.array(np.zeros((1, 1, num_keys)), "float32"), lens)
    assert int((lib.numpy(weights) > 0).sum()) == length
    assert int(lib.numpy(lib.d2l.mask_from_valid_lens(lens, 1, num_keys)).sum()) == length


# ------------------------------------------------------------------ gradients
def test_gradient_is_zero_past_the_length_and_that_of_the_unpadded_softmax(lib, padding_mask):
    """Within the length, the gradient of sum(softmax(row) * u) is the framework's own for the
    row alone, and s * (u - s.u), s the row's softmax."""
    lens = [[0, 2, 5], [1, 3, 9]]
    with lib.precision("float64"):
        X = lib.randn((2, 3, 5), seed=4, dtype="float64")
        upstream = lib.randn((2, 3, 5), seed=5, dtype="float64")
        (grad,) = lib.grad(lambda x: lib.total(lib.d2l.masked_softmax(x, lib.array(lens)) * upstream), X)
        assert (grad[padding_mask((2, 3, 5), lens)] == 0).all()
        for b in range(2):
            for i in range(3):
                length = min(lens[b, i] if isinstance(lens, np.ndarray) else lens[b][i], 5)
                if length == 0:
                    continue
                u = upstream[b, i, :length]
                (own,) = lib.grad(lambda row, u=u: lib.total(lib.softmax(row) * u), X[b, i, :length])
                np.testing.assert_allclose(grad[b, i, :length], own, rtol=1e-12, atol=1e-15)
                x, u = lib.numpy(X)[b, i, :length], lib.numpy(u)
                s = np.exp(x - x.max())
                s /= s.sum()
                np.testing.assert_allclose(grad[b, i, :length], s * (u - s @ u), rtol=1e-10, atol=1e-15)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32"])
def test_gradient_in_low_precision_is_finite_and_zero_past_the_length(lib, dtype, padding_mask):
    X = lib.randn((2, 3, 5), dtype=dtype, scale=100.0)
    upstream = lib.randn((2, 3, 5), seed=1, dtype=dtype)
    lens = [[0, 2, 5], [1, 3, 4]]
    (grad,) = lib.grad(lambda x: lib.total(lib.d2l.masked_softmax(x, lib.array(lens)) * upstream), X)
    assert np.isfinite(grad).all()
    assert (grad[padding_mask((2, 3, 5), lens)] == 0).all()
