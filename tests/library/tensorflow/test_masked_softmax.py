"""``masked_softmax`` in TensorFlow: values, masking, dtypes, lengths, no mutation, gradients,
``tf.function`` and XLA.

Errors are in ``test_errors.py``; random shapes, lengths and dtypes in ``test_properties.py``.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import tensorflow as tf

from d2l_lib import tensorflow as d2l

DTYPES = [tf.float16, tf.bfloat16, tf.float32, tf.float64]
# How far the sum of a row's weights may be from 1 (half precision rounds each weight).
SUM_TOLERANCE = {tf.float16: 4e-3, tf.bfloat16: 2e-2, tf.float32: 1e-5, tf.float64: 1e-12}


def as_f64(x) -> np.ndarray:
    return np.asarray(tf.cast(x, tf.float64))


# ------------------------------------------------------------------ values
def test_values_by_hand():
    X = tf.constant([[[1.0, 2.0, 3.0, 4.0], [0.0, 0.0, 5.0, 5.0]]], dtype=tf.float64)
    weights = d2l.masked_softmax(X, tf.constant([2]))
    e1, e2 = math.exp(1.0), math.exp(2.0)
    expected = [[[e1 / (e1 + e2), e2 / (e1 + e2), 0.0, 0.0], [0.5, 0.5, 0.0, 0.0]]]
    np.testing.assert_allclose(weights.numpy(), expected, rtol=1e-14, atol=0)


def test_values_by_hand_with_one_length_per_query():
    X = tf.constant([[[1.0, 2.0, 3.0], [1.0, 2.0, 3.0]]], dtype=tf.float64)
    weights = d2l.masked_softmax(X, tf.constant([[1, 3]]))
    e = [math.exp(v) for v in (1.0, 2.0, 3.0)]
    np.testing.assert_allclose(weights.numpy(), [[[1.0, 0.0, 0.0], [x / sum(e) for x in e]]], rtol=1e-14, atol=0)


def test_chapter_examples(padding_mask):
    """masked_softmax(tf.random.uniform((2, 2, 4)), [2, 3]) and the 2-D lengths [[1, 3], [2, 4]]."""
    X = tf.random.stateless_uniform((2, 2, 4), seed=(0, 0))
    for lens in (tf.constant([2, 3]), tf.constant([[1, 3], [2, 4]])):
        weights = d2l.masked_softmax(X, lens).numpy()
        padding = padding_mask(X.shape, lens)
        assert (weights[padding] == 0).all() and (weights[~padding] > 0).all()
        np.testing.assert_allclose(weights.sum(-1), np.ones((2, 2)), rtol=1e-6)


@pytest.mark.parametrize("lens", [[3, 1, 5], [[1, 2, 3, 4], [5, 0, 2, 1], [4, 4, 4, 4]]], ids=["1-D", "2-D"])
def test_matches_the_naive_reference(lens, reference_masked_softmax):
    X = tf.random.stateless_normal((3, 4, 5), seed=(1, 0), dtype=tf.float64)
    np.testing.assert_allclose(
        d2l.masked_softmax(X, tf.constant(lens)).numpy(), reference_masked_softmax(X, lens), rtol=1e-12, atol=1e-15
    )


def test_none_is_a_plain_softmax_over_the_last_axis():
    X = tf.random.stateless_normal((2, 3, 5), seed=(2, 0))
    np.testing.assert_array_equal(d2l.masked_softmax(X, None).numpy(), tf.nn.softmax(X, axis=-1).numpy())


@pytest.mark.parametrize("dtype", DTYPES)
def test_shape_and_dtype_are_kept(dtype):
    X = tf.cast(tf.random.stateless_normal((2, 3, 5), seed=(3, 0)), dtype)
    for lens in (None, tf.constant([1, 4]), tf.constant([[1, 2, 3], [0, 5, 9]])):
        weights = d2l.masked_softmax(X, lens)
        assert weights.shape == X.shape and weights.dtype == dtype


# ------------------------------------------------------------------ masking
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("scale", [1.0, 1e3, "huge"], ids=["unit", "1e3", "half-dtype-max"])
def test_exact_zeros_past_the_length_in_every_dtype(dtype, scale, padding_mask):
    """Exact zeros, no overflow, no NaN, even for scores of half the dtype's largest magnitude.
    Half, because the padding holds the dtype's minimum: a row whose valid scores all sit at
    that very minimum would tie with its padding (a known limit of the finite fill)."""
    X = tf.random.stateless_normal((3, 4, 6), seed=(4, 0), dtype=tf.float64)
    X = tf.sign(X) * (float(dtype.max) / 2) if scale == "huge" else X * scale
    X = tf.cast(X, dtype)
    lens = tf.constant([[0, 1, 3, 6], [2, 5, 7, 4], [6, 6, 1, 0]])
    weights = as_f64(d2l.masked_softmax(X, lens))
    padding = padding_mask(X.shape, lens)
    assert np.isfinite(weights).all() and (weights >= 0).all()
    assert (weights[padding] == 0).all()
    sums = weights.sum(-1)
    has_keys = lens.numpy() > 0
    np.testing.assert_allclose(sums[has_keys], 1.0, rtol=0, atol=SUM_TOLERANCE[dtype])
    assert (sums[~has_keys] == 0).all()


def test_float16_where_d2l_fill_value_overflows():
    """TensorFlow turns D2L's -1e6 into -inf in float16, silently; a fully masked row is NaN."""
    X = tf.random.stateless_uniform((2, 2, 4), seed=(5, 0), dtype=tf.float16)
    filled = tf.where(tf.ones((2, 2, 4), tf.bool), -1e6, X)  # what D2L's -1e6 fill gives
    assert np.isneginf(filled.numpy()).all()
    assert np.isnan(tf.nn.softmax(filled).numpy()).all()
    weights = d2l.masked_softmax(X, tf.constant([2, 0]))
    assert weights.dtype == tf.float16 and np.isfinite(weights.numpy()).all()
    assert (weights.numpy()[0, :, 2:] == 0).all() and (weights.numpy()[1] == 0).all()


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("lens", [[0, 2], [[0, 3], [0, 0]]], ids=["1-D", "2-D"])
def test_length_zero_gives_an_all_zero_row(dtype, lens):
    X = tf.cast(tf.random.stateless_normal((2, 2, 4), seed=(6, 0)), dtype)
    weights = as_f64(d2l.masked_softmax(X, tf.constant(lens)))
    zero_rows = np.broadcast_to(np.reshape(lens, (2, -1)), (2, 2)) == 0
    assert (weights[zero_rows] == 0).all() and not np.isnan(weights).any()
    assert (weights[~zero_rows].sum(-1) > 0.99).all()


def test_length_zero_gives_a_zero_output_row():
    queries, keys = tf.random.stateless_normal((2, 3, 4), (7, 0)), tf.random.stateless_normal((2, 5, 4), (7, 1))
    values = tf.random.stateless_normal((2, 5, 6), (7, 2)) + 10
    out = d2l.DotProductAttention(dropout=0.0)(queries, keys, values, tf.constant([[0, 2, 5], [1, 0, 3]])).numpy()
    assert (out[0, 0] == 0).all() and (out[1, 1] == 0).all()
    assert (np.abs(out[0, 1]) > 0).all() and (np.abs(out[1, 0]) > 0).all()


@pytest.mark.parametrize("length", [4, 5, 10**9, math.inf])
def test_length_at_or_past_the_number_of_keys_masks_nothing(length):
    X = tf.random.stateless_normal((2, 3, 4), seed=(8, 0))
    expected = tf.nn.softmax(X, axis=-1).numpy()
    dtype = tf.float32 if length == math.inf else tf.int64
    for lens in (tf.constant([length, length], dtype), tf.fill((2, 3), tf.constant(length, dtype))):
        np.testing.assert_array_equal(d2l.masked_softmax(X, lens).numpy(), expected)


def test_padding_never_gets_weight_whatever_its_scores():
    """NaN, inf or huge scores in the padding do not leak into the weights."""
    X = tf.random.stateless_normal((2, 2, 5), seed=(9, 0)).numpy()
    clean = X.copy()
    X[0, :, 2:] = np.nan
    X[1, 0, 3:] = np.inf
    X[1, 1, 3:] = 1e30
    clean[0, :, 2:] = clean[1, :, 3:] = 0.0
    lens = tf.constant([2, 3])
    weights = d2l.masked_softmax(tf.constant(X), lens).numpy()
    np.testing.assert_array_equal(weights, d2l.masked_softmax(tf.constant(clean), lens).numpy())
    assert np.isfinite(weights).all()


def test_no_weight_leaks_into_padding_when_all_valid_scores_are_minus_inf():
    weights = d2l.masked_softmax(tf.constant([[[-math.inf, -math.inf, 0.5, 0.3]]]), tf.constant([2])).numpy()
    assert (weights[0, 0, 2:] == 0).all()


# ------------------------------------------------------------------ lengths
@pytest.mark.parametrize("dtype", [tf.float32, tf.float64, tf.float16, tf.bfloat16])
def test_integral_float_lengths_equal_integer_lengths(dtype):
    """Old D2L code passes float lengths."""
    X = tf.random.stateless_normal((2, 3, 6), seed=(10, 0))
    for lens in ([2, 5], [[0, 3, 6], [1, 2, 9]]):
        expected = d2l.masked_softmax(X, tf.constant(lens)).numpy()
        np.testing.assert_array_equal(d2l.masked_softmax(X, tf.constant(lens, dtype)).numpy(), expected)


@pytest.mark.parametrize("dtype", [tf.int64, tf.int32, tf.int16, tf.int8, tf.uint8])
def test_integer_length_dtypes(dtype):
    X = tf.random.stateless_normal((2, 2, 5), seed=(11, 0))
    np.testing.assert_array_equal(
        d2l.masked_softmax(X, tf.constant([1, 4], dtype)).numpy(), d2l.masked_softmax(X, tf.constant([1, 4])).numpy()
    )


@pytest.mark.parametrize(
    "lens", [[1, 4], np.array([1, 4]), np.array([1.0, 4.0]), (1, 4)], ids=["list", "int-array", "float-array", "tuple"]
)
def test_lengths_as_python_sequences_and_numpy_arrays(lens):
    X = tf.random.stateless_normal((2, 2, 5), seed=(12, 0))
    np.testing.assert_array_equal(
        d2l.masked_softmax(X, lens).numpy(), d2l.masked_softmax(X, tf.constant([1, 4])).numpy()
    )


@pytest.mark.parametrize("dtype, num_keys, length", [(tf.bfloat16, 512, 300), (tf.float16, 4096, 3000)])
def test_low_precision_float_lengths_count_every_key(dtype, num_keys, length):
    """Lengths are compared in int64: float16 and bfloat16 cannot hold every key index."""
    weights = d2l.masked_softmax(tf.zeros((1, 1, num_keys)), tf.constant([length], dtype))
    assert int(tf.reduce_sum(tf.cast(weights > 0, tf.int32))) == length
    mask = d2l.mask_from_valid_lens(tf.constant([length], dtype), 1, num_keys)
    assert int(tf.reduce_sum(tf.cast(mask, tf.int32))) == length


# ------------------------------------------------------------------ no mutation
def test_does_not_change_a_variable_or_the_lengths():
    X = tf.Variable(tf.random.stateless_normal((2, 3, 4), seed=(13, 0)))
    X_before = X.numpy().copy()
    lens = np.array([1, 2])
    for valid_lens in (lens, lens.astype(np.float32), tf.constant([[0, 1, 2], [3, 4, 5]])):
        d2l.masked_softmax(X, valid_lens)
    np.testing.assert_array_equal(X.numpy(), X_before)
    np.testing.assert_array_equal(lens, [1, 2])


# ------------------------------------------------------------------ gradients
@pytest.mark.parametrize("lens", [[0, 2], [[0, 2, 5], [1, 3, 7]], [5, 5]], ids=["1-D", "2-D", "full"])
def test_gradient_matches_finite_differences(lens):
    X = tf.random.stateless_normal((2, 3, 5), seed=(14, 0), dtype=tf.float64)
    theoretical, numerical = tf.test.compute_gradient(lambda x: d2l.masked_softmax(x, tf.constant(lens)), [X])
    np.testing.assert_allclose(theoretical[0], numerical[0], rtol=1e-6, atol=1e-8)


def test_gradient_is_zero_past_the_length_and_that_of_the_unpadded_softmax(padding_mask):
    X = tf.random.stateless_normal((2, 3, 5), seed=(15, 0), dtype=tf.float64)
    upstream = tf.random.stateless_normal((2, 3, 5), seed=(15, 1), dtype=tf.float64)
    lens = tf.constant([[0, 2, 5], [1, 3, 9]])
    with tf.GradientTape() as tape:
        tape.watch(X)
        loss = tf.reduce_sum(d2l.masked_softmax(X, lens) * upstream)
    grad = tape.gradient(loss, X).numpy()
    assert (grad[padding_mask(X.shape, lens)] == 0).all()
    for b in range(2):
        for i in range(3):
            length = min(int(lens[b, i]), 5)
            if length == 0:
                continue
            row = X[b, i, :length]
            with tf.GradientTape() as tape:
                tape.watch(row)
                loss = tf.reduce_sum(tf.nn.softmax(row) * upstream[b, i, :length])
            np.testing.assert_allclose(grad[b, i, :length], tape.gradient(loss, row).numpy(), rtol=1e-12)


@pytest.mark.parametrize("dtype", [tf.float16, tf.bfloat16, tf.float32])
def test_gradient_in_low_precision_is_finite_and_zero_past_the_length(dtype, padding_mask):
    X = tf.cast(tf.random.stateless_normal((2, 3, 5), seed=(16, 0)) * 100, dtype)
    upstream = tf.cast(tf.random.stateless_normal((2, 3, 5), seed=(16, 1)), dtype)
    lens = tf.constant([[0, 2, 5], [1, 3, 4]])
    with tf.GradientTape() as tape:
        tape.watch(X)
        loss = tf.reduce_sum(d2l.masked_softmax(X, lens) * upstream)
    grad = as_f64(tape.gradient(loss, X))
    assert np.isfinite(grad).all() and (grad[padding_mask(X.shape, lens)] == 0).all()


# ------------------------------------------------------------------ tf.function and XLA
def test_inside_tf_function_with_unknown_sizes_and_lengths(reference_masked_softmax):
    """One trace for every shape: sizes and lengths are unknown while tracing."""
    traces = []

    @tf.function(input_signature=(tf.TensorSpec((None, None, None), tf.float32), tf.TensorSpec((None, None), tf.int32)))
    def weights_of(X, lens):
        traces.append(1)
        return d2l.masked_softmax(X, lens)

    for shape, lens in (((2, 3, 4), [[0, 1, 4], [2, 3, 9]]), ((1, 2, 6), [[5, 6]])):
        X = tf.random.stateless_normal(shape, seed=(17, 0))
        np.testing.assert_allclose(
            weights_of(X, tf.constant(lens)).numpy(), reference_masked_softmax(X, lens), rtol=1e-6, atol=1e-7
        )
    assert len(traces) == 1


@pytest.mark.parametrize("jit_compile", [False, True], ids=["graph", "xla"])
def test_compiled_equals_eager(jit_compile):
    X = tf.random.stateless_normal((3, 4, 7), seed=(18, 0))
    lens = tf.constant([[0, 1, 7, 9], [3, 3, 2, 1], [6, 5, 4, 0]])
    compiled = tf.function(d2l.masked_softmax, jit_compile=jit_compile)
    np.testing.assert_allclose(compiled(X, lens).numpy(), d2l.masked_softmax(X, lens).numpy(), rtol=1e-6, atol=1e-7)
