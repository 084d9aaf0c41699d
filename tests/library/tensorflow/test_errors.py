"""Clear errors in TensorFlow only: complex and NumPy scores, string lengths, lengths named in
the message, and errors inside ``tf.function`` and Keras. What every framework shares is in
``tests/library/test_errors.py``.

Errors raised inside a Keras layer's ``call`` reach the caller as the same exception type,
with Keras's summary of the call's arguments around the message; the fragments are checked.
Inside ``tf.function``, shape errors are raised while tracing; lengths whose values are only
known when the graph runs are checked by ``tf.debugging`` assertions (InvalidArgumentError).
"""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as tf

from d2l_lib import tensorflow as d2l

X = tf.random.stateless_uniform((2, 3, 4), seed=(0, 0))  # (batch, queries, keys)
LENS_SHAPES = "valid_lens must have shape (2,) or (2, 3) for X of shape (2, 3, 4)"


# ------------------------------------------------------------------ masked_softmax: scores


@pytest.mark.parametrize("dtype", [tf.complex64])
@pytest.mark.parametrize("lens", [tf.constant([1, 2]), None], ids=["lengths", "no-lengths"])
def test_complex_scores_are_not_floating_point(raises, dtype, lens):
    raises(
        TypeError,
        lambda: d2l.masked_softmax(tf.ones((2, 3, 4), dtype), lens),
        "X must hold floating-point scores",
        f"got dtype {dtype.name}",
    )


@pytest.mark.parametrize("scores", [np.ones((1, 1, 2))], ids=["ndarray"])
def test_numpy_scores_are_not_a_tensor(raises, scores):
    raises(
        TypeError,
        lambda: d2l.masked_softmax(scores, tf.constant([1])),
        "X must be a tf.Tensor",
        f"got {type(scores).__name__}",
    )


# ------------------------------------------------------------------ masked_softmax: valid_lens


@pytest.mark.parametrize(
    "lens", [[1, -1], [[0, 1, 2], [3, -2, 1]], [-1.0, 2.0], [-float("inf"), 1.0]], ids=["1-D", "2-D", "float", "-inf"]
)
def test_negative_lengths_are_named_in_the_message(raises, lens):
    message = raises(ValueError, lambda: d2l.masked_softmax(X, tf.constant(lens)), "valid_lens must not be negative")
    assert str(np.asarray(lens).tolist()) in message


def test_string_tensors_are_not_lengths(raises):
    strings = tf.constant(["1", "2"])
    raises(
        TypeError, lambda: d2l.masked_softmax(X, strings), "valid_lens must hold integer lengths", "got dtype string"
    )


# ------------------------------------------------------------------ inside tf.function
def test_shape_errors_are_raised_while_tracing(raises):
    @tf.function(input_signature=(tf.TensorSpec((2, None, 4)), tf.TensorSpec((3,), tf.int32)))
    def weights_of(X, lens):
        return d2l.masked_softmax(X, lens)

    raises(
        ValueError,
        lambda: weights_of.get_concrete_function(),
        "valid_lens must have shape (2,) or (2, None)",
        "got shape (3,)",
    )


def test_constant_lengths_are_checked_while_tracing(raises):
    raises(
        ValueError,
        lambda: tf.function(lambda x: d2l.masked_softmax(x, [1, -1]))(X),
        "valid_lens must not be negative, got [1, -1]",
    )


@pytest.mark.parametrize(
    "lens, message", [([1, -1], "valid_lens must not be negative"), ([1.5, 1.0], "valid_lens must hold whole numbers")]
)
def test_lengths_known_only_when_the_graph_runs_are_checked_by_assertions(raises, lens, message):
    dtype = tf.float32 if isinstance(lens[0], float) else tf.int32
    weights_of = tf.function(d2l.masked_softmax, input_signature=(tf.TensorSpec((2, 3, 4)), tf.TensorSpec((2,), dtype)))
    weights_of(X, tf.constant([1, 2], dtype))  # fine lengths pass
    with pytest.raises(tf.errors.InvalidArgumentError, match=message):
        weights_of(X, tf.constant(lens, dtype))


# ------------------------------------------------------------------ attention layers
def _qkv(q=(2, 3, 4), k=(2, 5, 4), v=(2, 5, 6)):
    return (
        tf.random.stateless_uniform(q, seed=(1, 0)),
        tf.random.stateless_uniform(k, seed=(1, 1)),
        tf.random.stateless_uniform(v, seed=(1, 2)),
    )


LAYERS = [lambda: d2l.DotProductAttention(0.0), lambda: d2l.AdditiveAttention(4, 4, 8, 0.0)]


def test_attention_inputs_not_tensors(raises):
    """Keras refuses lists as positional arguments itself; passed by keyword, they reach our check."""
    q, k, v = _qkv()
    raises(
        ValueError,
        lambda: d2l.DotProductAttention(0.0)(q.numpy().tolist(), k, v),
        "Only input tensors may be passed as positional arguments",
    )
    raises(
        TypeError,
        lambda: d2l.DotProductAttention(0.0)(q, k, values=v.numpy().tolist()),
        "values must be a tf.Tensor",
        "got list",
    )


@pytest.mark.parametrize("q, k", [((2, 3, 5), (2, 5, 2)), ((2, 3, 20), (2, 5, 3))])
def test_additive_attention_names_queries_and_keys_of_other_lengths(raises, q, k):
    raises(
        ValueError,
        lambda: d2l.AdditiveAttention(2, 20, 8, 0.0)(*_qkv(q, k)),
        "expected queries of length 20 and keys of length 2",
        f"got queries {q}, keys {k}",
    )


def test_layer_errors_keep_their_type_and_our_message_inside_keras_summary(raises):
    message = raises(
        ValueError,
        lambda: d2l.DotProductAttention(0.0)(*_qkv(k=(2, 5, 3))),
        "Exception encountered when calling DotProductAttention.call()",
        "queries and keys must have the same length d",
    )
    assert "keys=tf.Tensor(shape=(2, 5, 3), dtype=float32)" in message


def test_layer_shape_errors_are_raised_while_tracing(raises):
    attention = d2l.DotProductAttention(0.0)
    spec = tf.TensorSpec((None, None, 4))
    attend = tf.function(
        lambda q, k, v: attention(q, k, v), input_signature=(spec, tf.TensorSpec((None, None, 3)), spec)
    )
    raises(
        ValueError,
        attend.get_concrete_function,
        "queries and keys must have the same length d",
        "queries (None, None, 4), keys (None, None, 3)",
    )


# ------------------------------------------------------------------ check_shape
def test_check_shape_mismatch_names_a_tensor_shape_as_a_tuple(raises):
    shape = tf.TensorShape([6])
    raises(
        ValueError,
        lambda: d2l.check_shape(tf.zeros((2, 3)), shape),
        f"expected a tensor of shape {tuple(shape)}",
        "got shape (2, 3)",
    )
