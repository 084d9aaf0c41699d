"""Property-based tests (hypothesis) in TensorFlow only; the properties of ``masked_softmax``
that every framework shares, eagerly, are in ``tests/library/test_properties.py``.

* masked_softmax inside ``tf.function`` (sizes and lengths unknown while tracing), and
  eagerly: weights are finite and non-negative, sum to 1 within each valid length (to a
  tolerance that depends on the dtype), are exactly 0 beyond it, and a length of 0 gives an
  all-zero row.
* DotProductAttention without training equals Keras's ``keras.ops.dot_product_attention``
  given the equivalent boolean mask (True = attend). A query whose valid length is 0 has no
  key to attend: our output row is defined to be exactly zero, while the built-in averages all
  values there, so such rows are compared with zero instead.
* Dropout acts only with ``training=True``, on the weights, which ``attention_weights`` keeps
  as they were before dropout.
"""

from __future__ import annotations

import math

import keras
import numpy as np
import tensorflow as tf
from hypothesis import given, settings
from hypothesis import strategies as st

from d2l_lib import tensorflow as d2l

# Modest and reproducible: CI replays the same examples (derandomize) and writes no database.
FAST = settings(max_examples=40, deadline=None, derandomize=True, database=None)

DTYPES = [tf.float16, tf.bfloat16, tf.float32, tf.float64]
LENGTH_DTYPES = [tf.int64, tf.int32, tf.float32]


@st.composite
def scores_and_lengths(draw, dtypes=DTYPES, max_size=6):
    """Scores (batch, queries, keys) in a drawn dtype and scale, and lengths that are None,
    1-D or 2-D, from 0 to past the number of keys, as an integer or a float tensor."""
    shape = (draw(st.integers(1, 4)), draw(st.integers(1, max_size)), draw(st.integers(1, max_size + 2)))
    dtype = draw(st.sampled_from(dtypes))
    scale = draw(st.sampled_from([0.0, 1.0, 10.0, 1000.0]))
    seed = draw(st.integers(0, 2**31 - 1))
    X = tf.cast(tf.random.stateless_normal(shape, seed=(seed, 0), dtype=tf.float64) * scale, dtype)
    kind = draw(st.sampled_from(["none", "1-D", "2-D"]))
    if kind == "none":
        return X, None
    lens_shape = shape[:1] if kind == "1-D" else shape[:2]
    count = math.prod(lens_shape)
    lens = draw(st.lists(st.integers(0, shape[2] + 2), min_size=count, max_size=count))
    return X, tf.reshape(tf.constant(lens, draw(st.sampled_from(LENGTH_DTYPES))), lens_shape)


def _per_query(lens, shape) -> np.ndarray:
    batch_size, num_queries, num_keys = shape
    if lens is None:
        return np.full((batch_size, num_queries), num_keys)
    return np.broadcast_to(np.asarray(lens, dtype=np.int64).reshape(batch_size, -1), (batch_size, num_queries))


_traced: dict = {}


def traced_masked_softmax(X, lens):
    """masked_softmax inside a tf.function whose signature leaves every size unknown: one trace
    per dtype and rank of the lengths, reused across examples; the lengths' values are unknown
    while tracing, so tf.debugging assertions check them when the graph runs."""
    scores = tf.TensorSpec((None, None, None), X.dtype)
    if lens is None:
        if X.dtype not in _traced:
            _traced[X.dtype] = tf.function(lambda X: d2l.masked_softmax(X, None), input_signature=[scores])
        return _traced[X.dtype](X)
    key = (X.dtype, lens.dtype, lens.shape.rank)
    if key not in _traced:
        lengths = tf.TensorSpec((None,) * lens.shape.rank, lens.dtype)
        _traced[key] = tf.function(d2l.masked_softmax, input_signature=[scores, lengths])
    return _traced[key](X, lens)


@FAST
@given(scores_and_lengths(), st.booleans())
def test_weights_are_a_masked_distribution_inside_tf_function_too(masked_distribution, case, in_tf_function):
    X, lens = case
    weights = traced_masked_softmax(X, lens) if in_tf_function else d2l.masked_softmax(X, lens)
    assert weights.shape == X.shape and weights.dtype == X.dtype
    as_f64 = [np.asarray(tf.cast(x, tf.float64)) for x in (weights, X)]
    masked_distribution(*as_f64, None if lens is None else lens.numpy(), X.dtype.name)


@st.composite
def attention_inputs(draw):
    """Queries, keys, values in float32 and lengths that are None, 1-D or 2-D."""
    batch_size, num_queries, num_pairs = draw(st.integers(1, 3)), draw(st.integers(1, 6)), draw(st.integers(1, 8))
    d, value_size = draw(st.integers(1, 8)), draw(st.integers(1, 5))
    seed = draw(st.integers(0, 2**31 - 1))
    queries, keys, values = (
        tf.random.stateless_normal(shape, seed=(seed, i))
        for i, shape in enumerate(
            [(batch_size, num_queries, d), (batch_size, num_pairs, d), (batch_size, num_pairs, value_size)]
        )
    )
    kind = draw(st.sampled_from(["none", "1-D", "2-D"]))
    if kind == "none":
        return queries, keys, values, None
    shape = (batch_size,) if kind == "1-D" else (batch_size, num_queries)
    lens = draw(st.lists(st.integers(0, num_pairs + 1), min_size=math.prod(shape), max_size=math.prod(shape)))
    return queries, keys, values, tf.reshape(tf.constant(lens), shape)


@FAST
@given(attention_inputs(), st.sampled_from([0.0, 0.3, 0.9]))
def test_dot_product_attention_without_training_equals_keras_builtin(inputs, p):
    queries, keys, values, lens = inputs
    ours = d2l.DotProductAttention(dropout=p)(queries, keys, values, lens, training=False).numpy()
    mask = None
    per_query = _per_query(lens, (queries.shape[0], queries.shape[1], keys.shape[1]))
    if lens is not None:
        mask = d2l.mask_from_valid_lens(lens, queries.shape[1], keys.shape[1])[:, None]  # one head
    theirs = keras.ops.dot_product_attention(queries[:, :, None], keys[:, :, None], values[:, :, None], mask=mask)[
        :, :, 0
    ].numpy()
    empty = per_query == 0
    assert (ours[empty] == 0).all()  # no key to attend: a zero row, by definition
    np.testing.assert_allclose(ours[~empty], theirs[~empty], rtol=1e-5, atol=1e-6)


@FAST
@given(attention_inputs(), st.floats(0.1, 0.9))
def test_dropout_acts_only_with_training_and_on_the_weights(inputs, p):
    queries, keys, values, lens = inputs
    attention, no_dropout = d2l.DotProductAttention(dropout=p), d2l.DotProductAttention(dropout=0.0)
    evaluated = attention(queries, keys, values, lens).numpy()
    np.testing.assert_array_equal(evaluated, no_dropout(queries, keys, values, lens, training=True).numpy())
    identity = tf.eye(keys.shape[1], batch_shape=[keys.shape[0]])  # the output is the dropped-out weights
    dropped = attention(queries, keys, identity, lens, training=True).numpy()
    weights = attention.attention_weights.numpy()
    np.testing.assert_allclose(weights, no_dropout.attention_weights.numpy(), rtol=0, atol=0)  # before dropout
    kept = dropped != 0
    np.testing.assert_allclose(dropped[kept], weights[kept] / (1 - p), rtol=1e-5)
