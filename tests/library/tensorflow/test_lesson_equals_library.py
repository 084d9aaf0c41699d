"""The lesson's TensorFlow code and the library's give the same results.

As ``tests/library/test_lesson_equals_library.py`` does for PyTorch: the chapter's short
``masked_softmax``, Keras layers and exercise solutions against ``d2l_lib.tensorflow``'s,
on random and edge inputs in float32 and float16; weights equal, outputs equal to within
float rounding.
"""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as tf

from d2l_lib import tensorflow as d2l

LENGTHS = {
    "none": None,
    "1-D": [2, 3],
    "1-D, 0 and full": [0, 5],
    "2-D": [[1, 3, 5], [2, 4, 0]],
    "2-D, overlong": [[9, 1, 5], [5, 0, 7]],
}
DTYPES = [tf.float32, tf.float16]


def lengths(case):
    return None if LENGTHS[case] is None else tf.constant(LENGTHS[case])


def inputs(dtype, seed=0, d=4, v=3, query_size=None):
    generator = tf.random.Generator.from_seed(seed)
    return tuple(tf.cast(generator.normal(shape), dtype) for shape in ((2, 3, query_size or d), (2, 5, d), (2, 5, v)))


def close(actual, expected):
    assert actual.dtype == expected.dtype
    tolerance = 2e-3 if actual.dtype == tf.float16 else 1e-5
    np.testing.assert_allclose(
        np.asarray(actual, np.float64), np.asarray(expected, np.float64), rtol=tolerance, atol=1e-6
    )


def same_weights(actual, expected):
    close(actual, expected)
    assert np.array_equal(np.asarray(actual) == 0, np.asarray(expected) == 0), "zeros in other places"


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda dtype: dtype.name)
@pytest.mark.parametrize("case", LENGTHS)
def test_masked_softmax(lesson, case, dtype):
    X = tf.cast(4 * tf.random.Generator.from_seed(1).normal((2, 3, 5)), dtype)
    weights = lesson("tensorflow")["masked_softmax"](X, lengths(case))
    assert weights.dtype == dtype and not np.isnan(np.asarray(weights, np.float64)).any()
    assert np.array_equal(np.asarray(weights), np.asarray(d2l.masked_softmax(X, lengths(case))))


def test_masked_softmax_large_scores_of_every_dtype(lesson):
    for dtype in (tf.float64, tf.float32, tf.bfloat16, tf.float16):
        X = tf.cast(100 * tf.random.Generator.from_seed(2).normal((4, 64, 300)), dtype)
        lens = tf.constant([0, 1, 150, 300])
        mine = tf.cast(lesson("tensorflow")["masked_softmax"](X, lens), tf.float64)
        assert np.array_equal(np.asarray(mine), np.asarray(tf.cast(d2l.masked_softmax(X, lens), tf.float64))), dtype


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda dtype: dtype.name)
@pytest.mark.parametrize("case", LENGTHS)
def test_dot_product_attention(lesson, case, dtype):
    queries, keys, values = inputs(dtype)
    mine, theirs = lesson("tensorflow")["DotProductAttention"](0.5), d2l.DotProductAttention(0.5)
    output = mine(queries, keys, values, lengths(case), training=False)
    expected = theirs(queries, keys, values, lengths(case), training=False)
    close(tf.cast(output, expected.dtype), expected)
    same_weights(tf.cast(mine.attention_weights, expected.dtype), theirs.attention_weights)


def copy_kernels(mine, theirs, names):
    for name in names:
        getattr(mine, name).kernel.assign(getattr(theirs, name).kernel)


@pytest.mark.parametrize("case", LENGTHS)
def test_additive_attention(lesson, case):
    queries, keys, values = inputs(tf.float32, query_size=6)
    mine = lesson("tensorflow")["AdditiveAttention"](key_size=4, query_size=6, num_hiddens=8, dropout=0.1)
    theirs = d2l.AdditiveAttention(key_size=4, query_size=6, num_hiddens=8, dropout=0.1)
    mine(queries, keys, values, lengths(case), training=False)  # creates the weights
    copy_kernels(mine, theirs, ("W_k", "W_q", "w_v"))
    close(
        mine(queries, keys, values, lengths(case), training=False),
        theirs(queries, keys, values, lengths(case), training=False),
    )
    same_weights(mine.attention_weights, theirs.attention_weights)


@pytest.mark.parametrize("case", LENGTHS)
def test_exercise_solutions(lesson, case):
    queries, keys, values = inputs(tf.float32)
    mine, theirs = lesson("tensorflow")["DistanceAttention"](0.0), d2l.DistanceAttention(0.0)
    close(
        mine(queries, keys, values, lengths(case), training=False),
        theirs(queries, keys, values, lengths(case), training=False),
    )
    same_weights(mine.attention_weights, theirs.attention_weights)

    queries, keys, values = inputs(tf.float32, query_size=6)
    mine = lesson("tensorflow")["BilinearAttention"](query_size=6, key_size=4, dropout=0.0)
    theirs = d2l.BilinearAttention(query_size=6, key_size=4, dropout=0.0)
    mine(queries, keys, values, lengths(case), training=False)
    theirs(queries, keys, values, lengths(case), training=False)
    copy_kernels(mine, theirs, ("M",))
    close(
        mine(queries, keys, values, lengths(case), training=False),
        theirs(queries, keys, values, lengths(case), training=False),
    )
    same_weights(mine.attention_weights, theirs.attention_weights)
