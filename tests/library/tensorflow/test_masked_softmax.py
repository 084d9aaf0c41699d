"""``masked_softmax`` in TensorFlow only: D2L's fill in float16, variables, gradients against
finite differences (``tf.test.compute_gradient``), ``tf.function`` and XLA.

What every framework shares is in ``tests/library/test_masked_softmax.py``.
"""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as tf

from d2l_lib import tensorflow as d2l


def as_f64(x) -> np.ndarray:
    return np.asarray(tf.cast(x, tf.float64))


# ------------------------------------------------------------------ masking


def test_float16_where_d2l_fill_value_overflows():
    """TensorFlow turns D2L's -1e6 into -inf in float16, silently; a fully masked row is NaN."""
    X = tf.random.stateless_uniform((2, 2, 4), seed=(5, 0), dtype=tf.float16)
    filled = tf.where(tf.ones((2, 2, 4), tf.bool), -1e6, X)  # what D2L's -1e6 fill gives
    assert np.isneginf(filled.numpy()).all()
    assert np.isnan(tf.nn.softmax(filled).numpy()).all()
    weights = d2l.masked_softmax(X, tf.constant([2, 0]))
    assert weights.dtype == tf.float16 and np.isfinite(weights.numpy()).all()
    assert (weights.numpy()[0, :, 2:] == 0).all() and (weights.numpy()[1] == 0).all()


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
