"""Unit tests of the TensorFlow library pieces saved by the exercise solutions and "Going Further"."""

from __future__ import annotations

import math
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import keras  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
import tensorflow as tf  # noqa: E402

from d2l_lib import tensorflow as d2l  # noqa: E402


def explicit_distance_weights(queries, keys, valid_lens):
    """Masked softmax of -||q - k||^2 / (2 sqrt(d)), from explicit differences."""
    sq_dists = tf.reduce_sum((queries[:, :, None, :] - keys[:, None, :, :]) ** 2, axis=-1)
    return d2l.masked_softmax(-sq_dists / (2 * math.sqrt(queries.shape[-1])), valid_lens)


def random_inputs(batch=2, n=3, m=7, d=5, v=4, seed=0, dtype=tf.float64):
    return tuple(
        tf.random.stateless_normal(shape, seed=(seed, i), dtype=dtype)
        for i, shape in enumerate(((batch, n, d), (batch, m, d), (batch, m, v)))
    )


VALID_LENS = [None, tf.constant([2, 7]), tf.constant([[1, 4, 7], [3, 3, 0]])]


def close(actual, expected, **tolerances):
    np.testing.assert_allclose(np.asarray(actual), np.asarray(expected), **({"rtol": 1e-6, "atol": 1e-7} | tolerances))


# ---------------------------------------------------------------- DistanceAttention


@pytest.mark.parametrize("valid_lens", VALID_LENS, ids=["none", "1d", "2d"])
def test_distance_attention_equals_explicit_distances(valid_lens):
    queries, keys, values = random_inputs()
    attention = d2l.DistanceAttention(dropout=0.0, dtype="float64")
    output = attention(queries, keys, values, valid_lens)
    expected = explicit_distance_weights(queries, keys, valid_lens)
    close(attention.attention_weights, expected, rtol=1e-12, atol=1e-14)
    close(output, tf.matmul(expected, values), rtol=1e-12, atol=1e-14)
    assert output.shape == (2, 3, 4) and attention.attention_weights.shape == (2, 3, 7)


def test_distance_attention_matches_pairwise_distances():
    queries, keys, values = random_inputs(n=4, m=6, d=3)
    attention = d2l.DistanceAttention(dropout=0.0, dtype="float64")
    attention(queries, keys, values)
    q, k = queries.numpy(), keys.numpy()
    sq_dists = np.array([[[np.sum((q[b, i] - k[b, j]) ** 2) for j in range(6)] for i in range(4)] for b in range(2)])
    expected = np.exp(-sq_dists / (2 * math.sqrt(3)))
    close(attention.attention_weights, expected / expected.sum(-1, keepdims=True), rtol=1e-12)


def test_distance_attention_masks_past_the_valid_length():
    queries, keys, values = random_inputs()
    attention = d2l.DistanceAttention(dropout=0.0)
    attention(queries, keys, values, tf.constant([[1, 4, 7], [3, 3, 0]]))
    weights = attention.attention_weights.numpy()
    assert (weights[0, 0, 1:] == 0).all() and (weights[1, :2, 3:] == 0).all()
    assert (weights[1, 2] == 0).all()  # valid length 0: no weight at all
    close(weights[0].sum(-1), np.ones(3))


@pytest.mark.parametrize("norm", [0.5, 1.0, 3.0])
def test_distance_attention_ranks_equal_norm_keys_like_dot_product(norm):
    queries, keys, values = random_inputs(n=5, m=9, d=4, seed=1)
    keys = norm * keys / tf.norm(keys, axis=-1, keepdims=True)
    distance = d2l.DistanceAttention(dropout=0.0, dtype="float64")
    dot = d2l.DotProductAttention(dropout=0.0, dtype="float64")
    close(distance(queries, keys, values), dot(queries, keys, values), rtol=1e-12)
    close(distance.attention_weights, dot.attention_weights, rtol=1e-12)
    np.testing.assert_array_equal(
        tf.argsort(distance.attention_weights).numpy(), tf.argsort(dot.attention_weights).numpy()
    )


def test_distance_attention_differs_from_dot_product_for_unequal_norms():
    queries, keys, values = random_inputs(n=5, m=9, d=4, seed=1)
    keys = keys * tf.reshape(tf.linspace(tf.constant(0.2, tf.float64), 5.0, 9), (1, 9, 1))
    distance, dot = d2l.DistanceAttention(dropout=0.0), d2l.DotProductAttention(dropout=0.0)
    distance(queries, keys, values)
    dot(queries, keys, values)
    assert not np.allclose(distance.attention_weights.numpy(), dot.attention_weights.numpy())


def test_distance_attention_is_translation_invariant():
    queries, keys, values = random_inputs()
    shift = tf.random.stateless_normal((1, 1, 5), seed=(2, 0), dtype=tf.float64)
    attention = d2l.DistanceAttention(dropout=0.0, dtype="float64")
    close(attention(queries + shift, keys + shift, values), attention(queries, keys, values), rtol=1e-10)


def test_distance_attention_is_a_dot_product_attention_with_its_dropout():
    assert isinstance(d2l.DistanceAttention(0.1), d2l.DotProductAttention)
    queries, keys, _ = random_inputs(dtype=tf.float32)
    identity = tf.eye(7, batch_shape=[2])
    attention = d2l.DistanceAttention(dropout=0.5)
    dropped = attention(queries, keys, identity, training=True).numpy()
    kept = dropped != 0
    close(dropped[kept], 2 * attention.attention_weights.numpy()[kept])
    assert not kept.all()


def test_distance_attention_float32_and_gradients():
    queries, keys, values = random_inputs(dtype=tf.float32)
    with tf.GradientTape() as tape:
        tape.watch(queries)
        output = d2l.DistanceAttention(dropout=0.0)(queries, keys, values, tf.constant([2, 7]))
        loss = tf.reduce_sum(output)
    assert output.dtype == tf.float32
    assert np.isfinite(tape.gradient(loss, queries).numpy()).all()


@pytest.mark.parametrize(
    "shapes, message",
    [
        (((2, 3, 5), (2, 7, 4), (2, 7, 4)), "same length d"),
        (((2, 3, 5), (2, 7, 5), (2, 6, 4)), "same number of key-value pairs"),
        (((2, 3, 5), (1, 7, 5), (1, 7, 4)), "same batch size"),
        (((3, 5), (2, 7, 5), (2, 7, 4)), "queries must have shape"),
    ],
)
def test_distance_attention_errors(shapes, message):
    with pytest.raises(ValueError, match=message):
        d2l.DistanceAttention(dropout=0.0)(*(tf.zeros(shape) for shape in shapes))


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


@pytest.mark.parametrize("query_len, key_len", [(4, 5), (6, 3)])
def test_bilinear_attention_names_wrong_lengths(query_len, key_len):
    attention = d2l.BilinearAttention(query_size=6, key_size=5, dropout=0.0)
    queries, keys, values = tf.zeros((2, 1, query_len)), tf.zeros((2, 7, key_len)), tf.zeros((2, 7, 4))
    expected = (
        r"expected queries of length 6 and keys of length 5, "
        rf"got queries \(2, 1, {query_len}\), keys \(2, 7, {key_len}\)"
    )
    with pytest.raises(ValueError, match=expected):
        attention(queries, keys, values)


def test_bilinear_attention_checks_batch_pairs_and_types():
    attention = d2l.BilinearAttention(query_size=6, key_size=5, dropout=0.0)
    with pytest.raises(ValueError, match="same number of key-value pairs"):
        attention(tf.zeros((2, 1, 6)), tf.zeros((2, 7, 5)), tf.zeros((2, 8, 4)))
    with pytest.raises(TypeError, match="keys must be a tf.Tensor"):
        attention(tf.zeros((2, 1, 6)), values=tf.zeros((2, 8, 4)), keys=[[0.0] * 5])


def test_bilinear_attention_on_the_chapter_example_shapes():
    queries, keys, values = (
        tf.random.stateless_normal(shape, seed=(4, i)) for i, shape in enumerate(((2, 1, 20), (2, 10, 2), (2, 10, 4)))
    )
    attention = d2l.BilinearAttention(query_size=20, key_size=2, dropout=0.1)
    d2l.check_shape(attention(queries, keys, values, tf.constant([2, 6]), training=False), (2, 1, 4))
    weights = attention.attention_weights.numpy()
    assert (weights[0, 0, 2:] == 0).all() and (weights[1, 0, 6:] == 0).all()
    assert (weights[0, 0, :2] > 0).all() and (weights[1, 0, :6] > 0).all()


# ---------------------------------------------------------------- attention_cost


def test_attention_cost_formulas():
    cost = d2l.attention_cost(3, 5, 7, 11)
    assert cost["flops"] == 2 * 3 * 5 * (7 + 11) + 6 * 3 * 5 == 630
    io = 3 * 7 + 5 * 7 + 5 * 11 + 3 * 11
    assert cost["bytes_fused"] == 4 * io == 576
    assert cost["bytes"] == 4 * (io + 4 * 3 * 5) == 816


def test_attention_cost_scales():
    base = d2l.attention_cost(64, 128, 32, 16)
    batched = d2l.attention_cost(64, 128, 32, 16, batch_size=8, bytes_per_number=2)
    assert batched["flops"] == 8 * base["flops"]
    assert batched["bytes"] == 4 * base["bytes"] and batched["bytes_fused"] == 4 * base["bytes_fused"]
    assert d2l.attention_cost(128, 256, 32, 16)["flops"] == 4 * base["flops"]


def test_attention_cost_intensity_tends_to_d_plus_v_over_8():
    cost = d2l.attention_cost(1 << 16, 1 << 16, 64, 64)
    assert cost["flops"] / cost["bytes"] == pytest.approx((64 + 64) / 8, rel=0.05)
    assert cost["bytes_fused"] < cost["bytes"]


@pytest.mark.parametrize(
    "kwargs, error",
    [
        ({"n": 0}, ValueError),
        ({"m": -1}, ValueError),
        ({"d": 2.0}, TypeError),
        ({"v": True}, TypeError),
        ({"batch_size": 0}, ValueError),
        ({"bytes_per_number": 0}, ValueError),
    ],
)
def test_attention_cost_rejects_bad_sizes(kwargs, error):
    with pytest.raises(error, match=next(iter(kwargs))):
        d2l.attention_cost(**({"n": 2, "m": 3, "d": 4, "v": 5} | kwargs))


# ---------------------------------------------------------------- mask_from_valid_lens


def test_mask_from_valid_lens_1d_and_2d():
    mask = d2l.mask_from_valid_lens(tf.constant([2, 0]), num_queries=2, num_keys=4)
    assert mask.dtype == tf.bool and mask.shape == (2, 2, 4)
    assert tf.cast(mask, tf.int32).numpy().tolist() == [[[1, 1, 0, 0], [1, 1, 0, 0]], [[0, 0, 0, 0], [0, 0, 0, 0]]]
    mask = d2l.mask_from_valid_lens(tf.constant([[1, 3], [4, 9]]), num_queries=2, num_keys=4)
    assert tf.cast(mask, tf.int32).numpy().tolist() == [[[1, 0, 0, 0], [1, 1, 1, 0]], [[1, 1, 1, 1], [1, 1, 1, 1]]]
    for same in (tf.constant([[1.0, 3.0], [4.0, 9.0]]), [[1, 3], [4, 9]], np.array([[1, 3], [4, 9]])):
        np.testing.assert_array_equal(d2l.mask_from_valid_lens(same, 2, 4).numpy(), mask.numpy())


@pytest.mark.parametrize("valid_lens", [tf.constant([2, 7]), tf.constant([[1, 4, 7], [3, 3, 1]])], ids=["1d", "2d"])
def test_mask_matches_masked_softmax(valid_lens):
    weights = d2l.masked_softmax(tf.random.stateless_uniform((2, 3, 7), seed=(5, 0)) + 0.1, valid_lens)
    np.testing.assert_array_equal(d2l.mask_from_valid_lens(valid_lens, 3, 7).numpy(), weights.numpy() > 0)


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


@pytest.mark.parametrize(
    "valid_lens, error, message",
    [
        (tf.constant([[1, 2, 3]]), ValueError, r"shape \(batch size,\) or \(batch size, 2\)"),
        (tf.zeros((1, 2, 3), tf.int64), ValueError, "shape"),
        (tf.constant([-1, 2]), ValueError, "negative"),
        (tf.constant([1.5, 2.0]), ValueError, "whole numbers"),
        (tf.constant([True, False]), TypeError, "integer lengths"),
    ],
)
def test_mask_from_valid_lens_errors(valid_lens, error, message):
    with pytest.raises(error, match=message):
        d2l.mask_from_valid_lens(valid_lens, num_queries=2, num_keys=4)
