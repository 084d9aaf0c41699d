"""The exercise solutions' library pieces in TensorFlow only: ``DistanceAttention`` against
pairwise distances and with its dropout, ``BilinearAttention``'s kernel (by hand, the identity,
its gradient, typed inputs), ``mask_from_valid_lens`` inside ``tf.function`` and Keras's
built-in attention. What every framework shares is in ``tests/library/test_solutions.py``."""

from __future__ import annotations

import math
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import keras  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
import tensorflow as tf  # noqa: E402

from d2l_lib import tensorflow as d2l  # noqa: E402


def random_inputs(batch=2, n=3, m=7, d=5, v=4, seed=0, dtype=tf.float64):
    return tuple(
        tf.random.stateless_normal(shape, seed=(seed, i), dtype=dtype)
        for i, shape in enumerate(((batch, n, d), (batch, m, d), (batch, m, v)))
    )


VALID_LENS = [None, tf.constant([2, 7]), tf.constant([[1, 4, 7], [3, 3, 0]])]


def close(actual, expected, **tolerances):
    np.testing.assert_allclose(np.asarray(actual), np.asarray(expected), **({"rtol": 1e-6, "atol": 1e-7} | tolerances))


# ---------------------------------------------------------------- DistanceAttention


def test_distance_attention_matches_pairwise_distances():
    queries, keys, values = random_inputs(n=4, m=6, d=3)
    attention = d2l.DistanceAttention(dropout=0.0, dtype="float64")
    attention(queries, keys, values)
    q, k = queries.numpy(), keys.numpy()
    sq_dists = np.array([[[np.sum((q[b, i] - k[b, j]) ** 2) for j in range(6)] for i in range(4)] for b in range(2)])
    expected = np.exp(-sq_dists / (2 * math.sqrt(3)))
    close(attention.attention_weights, expected / expected.sum(-1, keepdims=True), rtol=1e-12)


def test_distance_attention_is_a_dot_product_attention_with_its_dropout():
    assert isinstance(d2l.DistanceAttention(0.1), d2l.DotProductAttention)
    queries, keys, _ = random_inputs(dtype=tf.float32)
    identity = tf.eye(7, batch_shape=[2])
    attention = d2l.DistanceAttention(dropout=0.5)
    dropped = attention(queries, keys, identity, training=True).numpy()
    kept = dropped != 0
    close(dropped[kept], 2 * attention.attention_weights.numpy()[kept])
    assert not kept.all()


# ---------------------------------------------------------------- BilinearAttention


@pytest.mark.parametrize("valid_lens", VALID_LENS, ids=["none", "1d", "2d"])
def test_bilinear_attention_equals_explicit_bilinear_form(valid_lens):
    queries = tf.random.stateless_normal((2, 3, 6), seed=(3, 0))
    _, keys, values = random_inputs(d=5, dtype=tf.float32)
    attention = d2l.BilinearAttention(query_size=6, key_size=5, dropout=0.0)
    output = attention(queries, keys, values, valid_lens)
    M = tf.transpose(attention.M.kernel)  # a Dense kernel is (input size, output size): M^T
    assert M.shape == (6, 5)
    scores = tf.einsum("bnq,qk,bmk->bnm", queries, M, keys) / math.sqrt(6)
    expected = d2l.masked_softmax(scores, valid_lens)
    close(attention.attention_weights, expected, rtol=1e-5)
    close(output, tf.matmul(expected, values), rtol=1e-5, atol=1e-6)
    assert output.shape == (2, 3, 4)


def test_bilinear_attention_with_identity_is_dot_product_attention():
    queries, keys, values = random_inputs(dtype=tf.float32)
    attention = d2l.BilinearAttention(query_size=5, key_size=5, dropout=0.0)
    attention.M.kernel.assign(tf.eye(5))
    lens = tf.constant([2, 7])
    close(attention(queries, keys, values, lens), d2l.DotProductAttention(dropout=0.0)(queries, keys, values, lens))


def test_bilinear_attention_learns_m_and_nothing_else():
    queries, keys, values = random_inputs(dtype=tf.float32)
    attention = d2l.BilinearAttention(query_size=5, key_size=5, dropout=0.0)
    assert [w.path for w in attention.trainable_weights] == [f"{attention.name}/M/kernel"]  # before any call
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(attention(queries, keys, values))
    (grad,) = tape.gradient(loss, attention.trainable_weights)
    assert grad is not None and np.isfinite(grad.numpy()).all()


def test_bilinear_attention_checks_batch_pairs_and_types():
    attention = d2l.BilinearAttention(query_size=6, key_size=5, dropout=0.0)
    with pytest.raises(ValueError, match="same number of key-value pairs"):
        attention(tf.zeros((2, 1, 6)), tf.zeros((2, 7, 5)), tf.zeros((2, 8, 4)))
    with pytest.raises(TypeError, match="keys must be a tf.Tensor"):
        attention(tf.zeros((2, 1, 6)), values=tf.zeros((2, 8, 4)), keys=[[0.0] * 5])


# ---------------------------------------------------------------- mask_from_valid_lens


@pytest.mark.parametrize("valid_lens", [tf.constant([2, 7]), tf.constant([[1, 4, 7], [3, 3, 1]])], ids=["1d", "2d"])
def test_dot_product_attention_equals_keras_builtin_with_mask(valid_lens):
    queries, keys, values = random_inputs(m=7, dtype=tf.float32)
    mask = d2l.mask_from_valid_lens(valid_lens, 3, 7)
    builtin = keras.ops.dot_product_attention(
        queries[:, :, None], keys[:, :, None], values[:, :, None], mask=mask[:, None]
    )[:, :, 0]
    close(d2l.DotProductAttention(dropout=0.0)(queries, keys, values, valid_lens), builtin, rtol=1e-5)


def test_mask_is_multi_head_attention_s_attention_mask():
    """As it is, without a heads axis, the mask fits keras.layers.MultiHeadAttention."""
    queries, keys, values = random_inputs(m=7, dtype=tf.float32)
    layer = keras.layers.MultiHeadAttention(num_heads=2, key_dim=4)
    mask = d2l.mask_from_valid_lens(tf.constant([[1, 4, 7], [3, 3, 1]]), 3, 7)
    _, scores = layer(queries, values, keys, attention_mask=mask, return_attention_scores=True)
    np.testing.assert_array_equal(scores.numpy() > 0, np.broadcast_to(mask.numpy()[:, None], scores.shape))


@pytest.mark.parametrize("length", [math.inf, 1e20], ids=["inf", "1e20"])
@pytest.mark.parametrize("dtype", [tf.float16, tf.bfloat16, tf.float32, tf.float64], ids=lambda dtype: dtype.name)
def test_mask_from_valid_lens_infinite_or_huge_float_length_masks_nothing(length, dtype):
    """As in PyTorch: float lengths are clipped before the cast to int64, also inside tf.function."""
    expected = [[[1, 1, 1, 1], [1, 0, 0, 0]], [[0, 0, 0, 0], [1, 1, 1, 1]]]
    per_query = tf.constant([[length, 1.0], [0.0, length]], dtype=dtype)
    assert tf.cast(d2l.mask_from_valid_lens(per_query, 2, 4), tf.int32).numpy().tolist() == expected
    traced = tf.function(lambda lens: d2l.mask_from_valid_lens(lens, 2, 4))(per_query)
    assert tf.cast(traced, tf.int32).numpy().tolist() == expected
    mask = d2l.mask_from_valid_lens(tf.constant([length, 2.0], dtype=dtype), num_queries=1, num_keys=4)
    assert tf.cast(mask, tf.int32).numpy().tolist() == [[[1, 1, 1, 1]], [[1, 1, 0, 0]]]
