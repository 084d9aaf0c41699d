"""Unit tests of the JAX library pieces saved by the exercise solutions and "Going Further":
DistanceAttention, BilinearAttention, attention_cost and mask_from_valid_lens."""

from __future__ import annotations

import math

import jax
import numpy as np
import pytest
from jax import numpy as jnp

from d2l_lib import jax as d2l


def random_inputs(batch=2, n=3, m=7, d=5, v=4, seed=0):
    rng = np.random.default_rng(seed)
    return tuple(
        jnp.asarray(rng.standard_normal(shape), dtype=jnp.float32)
        for shape in ((batch, n, d), (batch, m, d), (batch, m, v))
    )


def explicit_distance_weights(queries, keys, valid_lens):
    """Masked softmax of -||q - k||^2 / (2 sqrt(d)), from explicit differences (in NumPy)."""
    queries, keys = np.asarray(queries, dtype=np.float64), np.asarray(keys, dtype=np.float64)
    sq_dists = ((queries[:, :, None, :] - keys[:, None, :, :]) ** 2).sum(axis=-1)
    return d2l.masked_softmax(-sq_dists / (2 * math.sqrt(queries.shape[-1])), valid_lens)


VALID_LENS = [None, jnp.array([2, 7]), jnp.array([[1, 4, 7], [3, 3, 0]])]


# ---------------------------------------------------------------- DistanceAttention


@pytest.mark.parametrize("valid_lens", VALID_LENS, ids=["none", "1d", "2d"])
def test_distance_attention_equals_explicit_distances(valid_lens):
    queries, keys, values = random_inputs()
    output, weights = d2l.DistanceAttention(dropout=0.0).apply({}, queries, keys, values, valid_lens)
    expected = np.asarray(explicit_distance_weights(queries, keys, valid_lens))
    np.testing.assert_allclose(weights, expected, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(output, expected @ np.asarray(values), rtol=1e-5, atol=1e-5)
    assert output.shape == (2, 3, 4) and weights.shape == (2, 3, 7)


def test_distance_attention_masks_past_the_valid_length():
    _, weights = d2l.DistanceAttention(dropout=0.0).apply({}, *random_inputs(), jnp.array([[1, 4, 7], [3, 3, 0]]))
    weights = np.asarray(weights)
    assert (weights[0, 0, 1:] == 0).all() and (weights[1, :2, 3:] == 0).all()
    assert (weights[1, 2] == 0).all()  # valid length 0: no weight at all
    np.testing.assert_allclose(weights[0].sum(-1), np.ones(3), rtol=1e-6)


@pytest.mark.parametrize("norm", [0.5, 3.0])
def test_distance_attention_ranks_equal_norm_keys_like_dot_product(norm):
    queries, keys, values = random_inputs(seed=1)
    keys = norm * keys / jnp.linalg.norm(keys, axis=-1, keepdims=True)
    distance = d2l.DistanceAttention(dropout=0.0).apply({}, queries, keys, values)
    dot = d2l.DotProductAttention(dropout=0.0).apply({}, queries, keys, values)
    np.testing.assert_allclose(distance[0], dot[0], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(distance[1], dot[1], rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(np.argsort(np.asarray(distance[1]), -1), np.argsort(np.asarray(dot[1]), -1))


def test_distance_attention_differs_from_dot_product_for_unequal_norms():
    queries, keys, values = random_inputs(seed=1)
    keys = keys * jnp.linspace(0.2, 5.0, 7).reshape(1, 7, 1)
    _, distance = d2l.DistanceAttention(dropout=0.0).apply({}, queries, keys, values)
    _, dot = d2l.DotProductAttention(dropout=0.0).apply({}, queries, keys, values)
    assert not np.allclose(distance, dot)


def test_distance_attention_is_translation_invariant():
    queries, keys, values = random_inputs()
    shift = jnp.asarray(np.random.default_rng(2).standard_normal((1, 1, 5)), dtype=jnp.float32)
    attention = d2l.DistanceAttention(dropout=0.0)
    np.testing.assert_allclose(
        attention.apply({}, queries + shift, keys + shift, values)[0],
        attention.apply({}, queries, keys, values)[0],
        rtol=1e-4,
        atol=1e-5,
    )


def test_distance_attention_is_a_dot_product_attention_under_jit_and_grad():
    assert issubclass(d2l.DistanceAttention, d2l.DotProductAttention)
    queries, keys, values = random_inputs()
    attention = d2l.DistanceAttention(dropout=0.1)

    def loss(q):
        return attention.apply({}, q, keys, values, jnp.array([2, 7]))[0].sum()

    grad = np.asarray(jax.jit(jax.grad(loss))(queries))
    assert np.isfinite(grad).all() and (grad != 0).any()


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
    arrays = [jnp.zeros(shape) for shape in shapes]
    with pytest.raises(ValueError, match=message):
        d2l.DistanceAttention(dropout=0.0).apply({}, *arrays)


# ---------------------------------------------------------------- BilinearAttention


@pytest.mark.parametrize("valid_lens", VALID_LENS, ids=["none", "1d", "2d"])
def test_bilinear_attention_equals_explicit_bilinear_form(valid_lens):
    queries = jnp.asarray(np.random.default_rng(3).standard_normal((2, 3, 6)), dtype=jnp.float32)
    _, keys, values = random_inputs(d=5)
    attention = d2l.BilinearAttention(dropout=0.0, query_size=6, key_size=5)
    (output, weights), params = attention.init_with_output(jax.random.key(0), queries, keys, values, valid_lens)
    kernel = np.asarray(params["params"]["M"]["kernel"])
    assert kernel.shape == (5, 6)  # M transposed: (key_size, query_size)
    M = kernel.T
    scores = np.einsum("bnq,qk,bmk->bnm", np.asarray(queries), M, np.asarray(keys)) / math.sqrt(6)
    expected = np.asarray(d2l.masked_softmax(scores, valid_lens))
    np.testing.assert_allclose(weights, expected, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(output, expected @ np.asarray(values), rtol=1e-5, atol=1e-5)
    assert output.shape == (2, 3, 4)


def test_bilinear_attention_with_identity_is_dot_product_attention():
    queries, keys, values = random_inputs()
    params = {"params": {"M": {"kernel": jnp.eye(5)}}}
    lens = jnp.array([2, 7])
    bilinear = d2l.BilinearAttention(dropout=0.0, query_size=5, key_size=5).apply(params, queries, keys, values, lens)
    dot = d2l.DotProductAttention(dropout=0.0).apply({}, queries, keys, values, lens)
    np.testing.assert_allclose(bilinear[0], dot[0], rtol=1e-6, atol=1e-7)


def test_bilinear_attention_learns_its_one_parameter():
    queries, keys, values = random_inputs()
    attention = d2l.BilinearAttention(dropout=0.0, query_size=5, key_size=5)
    params = attention.init(jax.random.key(0), queries, keys, values)
    assert jax.tree.map(jnp.shape, params) == {"params": {"M": {"kernel": (5, 5)}}}
    grads = jax.grad(lambda p: attention.apply(p, queries, keys, values)[0].sum())(params)
    assert (np.asarray(grads["params"]["M"]["kernel"]) != 0).any()


@pytest.mark.parametrize("query_len, key_len", [(4, 5), (6, 3)])
def test_bilinear_attention_names_wrong_lengths(query_len, key_len):
    attention = d2l.BilinearAttention(dropout=0.0, query_size=6, key_size=5)
    queries, keys, values = jnp.zeros((2, 1, query_len)), jnp.zeros((2, 7, key_len)), jnp.zeros((2, 7, 4))
    expected = (
        r"expected queries of length 6 and keys of length 5, "
        rf"got queries \(2, 1, {query_len}\), keys \(2, 7, {key_len}\)"
    )
    with pytest.raises(ValueError, match=expected):
        attention.init(jax.random.key(0), queries, keys, values)


def test_bilinear_attention_checks_batch_and_pairs():
    attention = d2l.BilinearAttention(dropout=0.0, query_size=6, key_size=5)
    with pytest.raises(ValueError, match="same number of key-value pairs"):
        attention.init(jax.random.key(0), jnp.zeros((2, 1, 6)), jnp.zeros((2, 7, 5)), jnp.zeros((2, 8, 4)))
    with pytest.raises(TypeError, match="keys must be a jax.Array"):
        attention.init(jax.random.key(0), jnp.zeros((2, 1, 6)), [[0.0] * 5], jnp.zeros((2, 8, 4)))


def test_bilinear_attention_on_the_chapter_example_shapes():
    rng = np.random.default_rng(0)
    queries, keys, values = (
        jnp.asarray(rng.standard_normal(s), dtype=jnp.float32) for s in ((2, 1, 20), (2, 10, 2), (2, 10, 4))
    )
    attention = d2l.BilinearAttention(dropout=0.1, query_size=20, key_size=2)
    (output, weights), _ = attention.init_with_output(jax.random.key(2), queries, keys, values, jnp.array([2, 6]))
    d2l.check_shape(output, (2, 1, 4))
    weights = np.asarray(weights)
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
    sizes = {"n": 2, "m": 3, "d": 4, "v": 5} | kwargs
    with pytest.raises(error, match=next(iter(kwargs))):
        d2l.attention_cost(**sizes)


# ---------------------------------------------------------------- mask_from_valid_lens


def test_mask_from_valid_lens_1d_and_2d():
    mask = d2l.mask_from_valid_lens(jnp.array([2, 0]), num_queries=2, num_keys=4)
    assert mask.dtype == jnp.bool_ and mask.shape == (2, 2, 4)
    assert np.asarray(mask).astype(int).tolist() == [[[1, 1, 0, 0], [1, 1, 0, 0]], [[0, 0, 0, 0], [0, 0, 0, 0]]]
    mask = np.asarray(d2l.mask_from_valid_lens(jnp.array([[1, 3], [4, 9]]), num_queries=2, num_keys=4))
    assert mask.astype(int).tolist() == [[[1, 0, 0, 0], [1, 1, 1, 0]], [[1, 1, 1, 1], [1, 1, 1, 1]]]
    np.testing.assert_array_equal(d2l.mask_from_valid_lens(jnp.array([[1.0, 3.0], [4.0, 9.0]]), 2, 4), mask)
    np.testing.assert_array_equal(d2l.mask_from_valid_lens([[1, 3], [4, 9]], 2, 4), mask)


@pytest.mark.parametrize("valid_lens", [jnp.array([2, 7]), jnp.array([[1, 4, 7], [3, 3, 1]])], ids=["1d", "2d"])
def test_mask_matches_masked_softmax(valid_lens):
    X = jnp.asarray(np.random.default_rng(4).uniform(size=(2, 3, 7)) + 0.1, dtype=jnp.float32)
    weights = np.asarray(d2l.masked_softmax(X, valid_lens))
    np.testing.assert_array_equal(d2l.mask_from_valid_lens(valid_lens, 3, 7), weights > 0)


def test_mask_from_valid_lens_under_jit():
    mask = jax.jit(d2l.mask_from_valid_lens, static_argnums=(1, 2))(jnp.array([[1.0, 3.0], [4.0, 9.0]]), 2, 4)
    np.testing.assert_array_equal(mask, d2l.mask_from_valid_lens([[1, 3], [4, 9]], 2, 4))


@pytest.mark.parametrize("valid_lens", [jnp.array([2, 7]), jnp.array([[1, 4, 7], [3, 3, 1]])], ids=["1d", "2d"])
def test_dot_product_attention_equals_builtin_with_mask(valid_lens):
    queries, keys, values = random_inputs(v=5)  # the built-in wants values as long as the keys
    output, _ = d2l.DotProductAttention(dropout=0.0).apply({}, queries, keys, values, valid_lens)
    mask = d2l.mask_from_valid_lens(valid_lens, 3, 7)
    builtin = jax.nn.dot_product_attention(
        queries[:, :, None], keys[:, :, None], values[:, :, None], mask=mask[:, None]
    )
    np.testing.assert_allclose(output, np.asarray(builtin)[:, :, 0], rtol=1e-5, atol=1e-6)


def test_dot_product_attention_equals_builtin_with_key_value_seq_lengths():
    queries, keys, values = random_inputs(v=5)
    lens = jnp.array([2, 7])
    output, _ = d2l.DotProductAttention(dropout=0.0).apply({}, queries, keys, values, lens)
    builtin = jax.nn.dot_product_attention(
        queries[:, :, None], keys[:, :, None], values[:, :, None], key_value_seq_lengths=lens
    )
    np.testing.assert_allclose(output, np.asarray(builtin)[:, :, 0], rtol=1e-5, atol=1e-6)


@pytest.mark.filterwarnings("ignore:overflow encountered in cast:RuntimeWarning")  # 1e20 in float16
@pytest.mark.parametrize("length", [math.inf, 1e20], ids=["inf", "1e20"])
@pytest.mark.parametrize("dtype", [jnp.float16, jnp.bfloat16, jnp.float32], ids=lambda dtype: jnp.dtype(dtype).name)
def test_mask_from_valid_lens_infinite_or_huge_float_length_masks_nothing(length, dtype):
    """As in PyTorch: float lengths are clipped before the cast to int32, also under jax.jit."""
    expected = [[[1, 1, 1, 1], [1, 0, 0, 0]], [[0, 0, 0, 0], [1, 1, 1, 1]]]
    per_query = jnp.array([[length, 1.0], [0.0, length]], dtype=dtype)
    for lens in (per_query, np.asarray(per_query, np.float64)):
        assert np.asarray(d2l.mask_from_valid_lens(lens, num_queries=2, num_keys=4)).astype(int).tolist() == expected
    jitted = jax.jit(d2l.mask_from_valid_lens, static_argnums=(1, 2))(per_query, 2, 4)
    assert np.asarray(jitted).astype(int).tolist() == expected
    mask = d2l.mask_from_valid_lens(jnp.array([length, 2.0], dtype=dtype), num_queries=1, num_keys=4)
    assert np.asarray(mask).astype(int).tolist() == [[[1, 1, 1, 1]], [[1, 1, 0, 0]]]


@pytest.mark.parametrize(
    "valid_lens, error, message",
    [
        (jnp.array([[1, 2, 3]]), ValueError, r"shape \(batch size,\) or \(batch size, 2\)"),
        (jnp.zeros((1, 2, 3), dtype=jnp.int32), ValueError, "shape"),
        (jnp.array([-1, 2]), ValueError, "negative"),
        (jnp.array([1.5, 2.0]), ValueError, "whole numbers"),
        (jnp.array([True, False]), TypeError, "integer lengths"),
    ],
)
def test_mask_from_valid_lens_errors(valid_lens, error, message):
    with pytest.raises(error, match=message):
        d2l.mask_from_valid_lens(valid_lens, num_queries=2, num_keys=4)
