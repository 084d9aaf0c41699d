"""Clear errors: a ValueError or TypeError whose message names the argument, with the expected
and the received shape (or dtype, or value), as in the PyTorch library.

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


def raises(error, fn, *fragments):
    """Call ``fn``; it must raise exactly ``error`` with every fragment in its message."""
    with pytest.raises(error) as info:
        fn()
    assert type(info.value) is error
    message = str(info.value)
    for fragment in fragments:
        assert fragment in message, f"{fragment!r} not in {message!r}"
    return message


X = tf.random.stateless_uniform((2, 3, 4), seed=(0, 0))  # (batch, queries, keys)
LENS_SHAPES = "valid_lens must have shape (2,) or (2, 3) for X of shape (2, 3, 4)"


# ------------------------------------------------------------------ masked_softmax: scores
@pytest.mark.parametrize("shape", [(3, 4), (1, 2, 3, 4), (4,)])
@pytest.mark.parametrize("lens", [tf.constant([1, 2]), None], ids=["lengths", "no-lengths"])
def test_scores_not_3d(shape, lens):
    raises(
        ValueError,
        lambda: d2l.masked_softmax(tf.zeros(shape), lens),
        "X must have shape (batch size, no. of queries, no. of keys)",
        f"got shape {shape}",
    )


@pytest.mark.parametrize("dtype", [tf.int64, tf.int32, tf.bool, tf.uint8, tf.complex64])
@pytest.mark.parametrize("lens", [tf.constant([1, 2]), None], ids=["lengths", "no-lengths"])
def test_scores_not_floating_point(dtype, lens):
    raises(
        TypeError,
        lambda: d2l.masked_softmax(tf.ones((2, 3, 4), dtype), lens),
        "X must hold floating-point scores",
        f"got dtype {dtype.name}",
    )


@pytest.mark.parametrize("scores", [[[[0.5, 0.5]]], np.ones((1, 1, 2))], ids=["list", "ndarray"])
def test_scores_not_a_tensor(scores):
    raises(
        TypeError,
        lambda: d2l.masked_softmax(scores, tf.constant([1])),
        "X must be a tf.Tensor",
        f"got {type(scores).__name__}",
    )


# ------------------------------------------------------------------ masked_softmax: valid_lens
@pytest.mark.parametrize("shape", [(), (2, 3, 1), (1, 2, 3)], ids=["0-D", "3-D", "3-D-b"])
def test_lengths_of_wrong_rank(shape):
    raises(ValueError, lambda: d2l.masked_softmax(X, tf.ones(shape, tf.int64)), LENS_SHAPES, f"got shape {shape}")


@pytest.mark.parametrize("shape", [(3,), (1,), (3, 3)])
def test_lengths_of_wrong_batch_size(shape):
    raises(ValueError, lambda: d2l.masked_softmax(X, tf.ones(shape, tf.int64)), LENS_SHAPES, f"got shape {shape}")


@pytest.mark.parametrize("shape", [(2, 4), (2, 1), (2, 2)])
def test_lengths_of_wrong_per_query_shape(shape):
    raises(ValueError, lambda: d2l.masked_softmax(X, tf.ones(shape, tf.int64)), LENS_SHAPES, f"got shape {shape}")


@pytest.mark.parametrize(
    "lens", [[1, -1], [[0, 1, 2], [3, -2, 1]], [-1.0, 2.0], [-float("inf"), 1.0]], ids=["1-D", "2-D", "float", "-inf"]
)
def test_negative_lengths(lens):
    message = raises(ValueError, lambda: d2l.masked_softmax(X, tf.constant(lens)), "valid_lens must not be negative")
    assert str(np.asarray(lens).tolist()) in message


@pytest.mark.parametrize("lens", [[1.5, 2.0], [[0.0, 1.0, 2.25], [1.0, 1.0, 1.0]], [float("nan"), 1.0]])
def test_fractional_lengths(lens):
    raises(ValueError, lambda: d2l.masked_softmax(X, tf.constant(lens)), "valid_lens must hold whole numbers")


@pytest.mark.parametrize(
    "lens",
    [tf.constant([True, False]), tf.constant([1 + 0j, 2 + 0j]), tf.constant(["1", "2"])],
    ids=["bool", "complex", "string"],
)
def test_lengths_of_a_non_integer_dtype(lens):
    raises(
        TypeError,
        lambda: d2l.masked_softmax(X, lens),
        "valid_lens must hold integer lengths",
        f"got dtype {lens.dtype.name}",
    )


# ------------------------------------------------------------------ inside tf.function
def test_shape_errors_are_raised_while_tracing():
    @tf.function(input_signature=(tf.TensorSpec((2, None, 4)), tf.TensorSpec((3,), tf.int32)))
    def weights_of(X, lens):
        return d2l.masked_softmax(X, lens)

    raises(
        ValueError,
        lambda: weights_of.get_concrete_function(),
        "valid_lens must have shape (2,) or (2, None)",
        "got shape (3,)",
    )


def test_constant_lengths_are_checked_while_tracing():
    raises(
        ValueError,
        lambda: tf.function(lambda x: d2l.masked_softmax(x, [1, -1]))(X),
        "valid_lens must not be negative, got [1, -1]",
    )


@pytest.mark.parametrize(
    "lens, message", [([1, -1], "valid_lens must not be negative"), ([1.5, 1.0], "valid_lens must hold whole numbers")]
)
def test_lengths_known_only_when_the_graph_runs_are_checked_by_assertions(lens, message):
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


def _shapes(q, k, v):
    return f"queries {q}, keys {k}, values {v}"


LAYERS = [lambda: d2l.DotProductAttention(0.0), lambda: d2l.AdditiveAttention(4, 4, 8, 0.0)]


def test_dot_product_query_key_length_mismatch():
    q, k, v = (2, 3, 4), (2, 5, 3), (2, 5, 6)
    raises(
        ValueError,
        lambda: d2l.DotProductAttention(0.0)(*_qkv(q, k, v)),
        "queries and keys must have the same length d",
        _shapes(q, k, v),
    )


@pytest.mark.parametrize("layer", LAYERS, ids=["dot", "additive"])
def test_key_value_count_mismatch(layer):
    q, k, v = (2, 3, 4), (2, 5, 4), (2, 6, 6)
    raises(
        ValueError,
        lambda: layer()(*_qkv(q, k, v)),
        "keys and values must have the same number of key-value pairs",
        _shapes(q, k, v),
    )


@pytest.mark.parametrize("layer", LAYERS, ids=["dot", "additive"])
@pytest.mark.parametrize(
    "q, k, v", [((3, 3, 4), (2, 5, 4), (2, 5, 6)), ((2, 3, 4), (2, 5, 4), (1, 5, 6))], ids=["queries", "values"]
)
def test_batch_size_mismatch(layer, q, k, v):
    raises(
        ValueError,
        lambda: layer()(*_qkv(q, k, v)),
        "queries, keys and values must have the same batch size",
        _shapes(q, k, v),
    )


@pytest.mark.parametrize("which", ["queries", "keys", "values"])
def test_attention_inputs_not_3d(which):
    shapes = {"q": (2, 3, 4), "k": (2, 5, 4), "v": (2, 5, 6)}
    shapes[which[0]] = (5, 4)
    raises(
        ValueError,
        lambda: d2l.DotProductAttention(0.0)(*_qkv(**shapes)),
        f"{which} must have shape (batch size, no. of {which}, length)",
        "got shape (5, 4)",
    )


def test_attention_inputs_not_tensors():
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


@pytest.mark.parametrize("layer", LAYERS, ids=["dot", "additive"])
def test_attention_with_lengths_of_the_wrong_shape(layer):
    raises(
        ValueError,
        lambda: layer()(*_qkv(), tf.constant([1, 2, 3])),
        "valid_lens must have shape (2,) or (2, 3)",
        "got shape (3,)",
    )


@pytest.mark.parametrize("q, k", [((2, 3, 5), (2, 5, 2)), ((2, 3, 20), (2, 5, 3))])
def test_additive_attention_names_queries_and_keys_of_other_lengths(q, k):
    raises(
        ValueError,
        lambda: d2l.AdditiveAttention(2, 20, 8, 0.0)(*_qkv(q, k)),
        "expected queries of length 20 and keys of length 2",
        f"got queries {q}, keys {k}",
    )


def test_additive_attention_accepts_different_query_and_key_lengths():
    out = d2l.AdditiveAttention(2, 20, 8, 0.0)(*_qkv(q=(2, 3, 20), k=(2, 5, 2)), tf.constant([2, 5]))
    assert out.shape == (2, 3, 6)


def test_layer_errors_keep_their_type_and_our_message_inside_keras_summary():
    message = raises(
        ValueError,
        lambda: d2l.DotProductAttention(0.0)(*_qkv(k=(2, 5, 3))),
        "Exception encountered when calling DotProductAttention.call()",
        "queries and keys must have the same length d",
    )
    assert "keys=tf.Tensor(shape=(2, 5, 3), dtype=float32)" in message


def test_layer_shape_errors_are_raised_while_tracing():
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
@pytest.mark.parametrize("shape", [(3, 2), [2, 3, 1], tf.TensorShape([6])], ids=["tuple", "list", "TensorShape"])
def test_check_shape_mismatch_is_a_value_error_naming_both_shapes(shape):
    raises(
        ValueError,
        lambda: d2l.check_shape(tf.zeros((2, 3)), shape),
        f"expected a tensor of shape {tuple(shape)}",
        "got shape (2, 3)",
    )


@pytest.mark.parametrize("shape", [6, "2,3", None])
def test_check_shape_refuses_a_shape_that_is_not_a_sequence(shape):
    raises(TypeError, lambda: d2l.check_shape(tf.zeros((2, 3)), shape), "shape must be a tuple, list or tf.TensorShape")


# ------------------------------------------------------------------ show_heatmaps
@pytest.mark.parametrize("shape", [(), (5,), (1, 1, 1, 2, 2)], ids=["0-D", "1-D", "5-D"])
def test_show_heatmaps_refuses_other_ranks(shape):
    raises(
        ValueError,
        lambda: d2l.show_heatmaps(tf.zeros(shape), xlabel="Keys", ylabel="Queries"),
        "matrices must have shape (queries, keys), (panels, queries, keys) or (grid rows, grid columns, queries, keys)",
        f"got shape {shape}",
    )


def test_show_heatmaps_refuses_titles_that_do_not_match_the_columns():
    raises(
        ValueError,
        lambda: d2l.show_heatmaps(tf.zeros((1, 2, 3, 3)), "Keys", "Queries", titles=["only one"]),
        "titles must have one entry per column of panels (2)",
        "got 1",
    )
