"""The library pieces saved by the exercise solutions and "Going Further", in every framework:
``DistanceAttention``, ``BilinearAttention``, ``attention_cost`` and ``mask_from_valid_lens``.

What only one framework has (parameters, gradients of the layers' own weights, each one's
built-in attention, ``jax.jit``) is in ``<framework>/test_solutions.py``; that the lesson's
solutions equal these is in ``test_lesson_equals_library.py``.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

VALID_LENS = [None, [2, 7], [[1, 4, 7], [3, 3, 0]]]


def random_inputs(lib, batch=2, n=3, m=7, d=5, v=4, seed=0, dtype="float64"):
    """Queries (batch, n, d), keys (batch, m, d) and values (batch, m, v), standard normal."""
    rng = np.random.default_rng(seed)
    return tuple(
        lib.array(rng.standard_normal(shape), dtype) for shape in ((batch, n, d), (batch, m, d), (batch, m, v))
    )


def lengths(lib, valid_lens):
    """``valid_lens`` as an array of the framework (None stays None)."""
    return None if valid_lens is None else lib.array(valid_lens)


# ---------------------------------------------------------------- DistanceAttention
@pytest.mark.parametrize("valid_lens", VALID_LENS, ids=["none", "1d", "2d"])
def test_distance_attention_equals_explicit_distances(lib, valid_lens, reference_masked_softmax):
    """Weights: the masked softmax of -||q - k||^2 / (2 sqrt(d)), from explicit differences."""
    with lib.precision("float64"):
        queries, keys, values = random_inputs(lib)
        output, weights = lib.layer("distance", 0.0, dtype="float64")(queries, keys, values, lengths(lib, valid_lens))
        output, weights = lib.numpy(output), lib.numpy(weights)
    queries, keys, values = (lib.numpy(x) for x in (queries, keys, values))
    sq_dists = ((queries[:, :, None, :] - keys[:, None, :, :]) ** 2).sum(axis=-1)
    expected = reference_masked_softmax(-sq_dists / (2 * math.sqrt(5)), valid_lens)
    np.testing.assert_allclose(weights, expected, rtol=1e-7, atol=1e-7)
    np.testing.assert_allclose(output, expected @ values, rtol=1e-7, atol=1e-7)
    assert output.shape == (2, 3, 4) and weights.shape == (2, 3, 7)


def test_distance_attention_masks_past_the_valid_length(lib):
    _, weights = lib.layer("distance", 0.0)(*random_inputs(lib, dtype="float32"), lib.array([[1, 4, 7], [3, 3, 0]]))
    weights = lib.numpy(weights)
    assert (weights[0, 0, 1:] == 0).all() and (weights[1, :2, 3:] == 0).all()
    assert (weights[1, 2] == 0).all()  # valid length 0: no weight at all
    np.testing.assert_allclose(weights[0].sum(-1), np.ones(3), rtol=1e-6)


@pytest.mark.parametrize("norm", [0.5, 1.0, 3.0])
def test_distance_attention_ranks_equal_norm_keys_like_dot_product(lib, norm):
    with lib.precision("float64"):
        queries, keys, values = (lib.numpy(x) for x in random_inputs(lib, n=5, m=9, d=4, seed=1))
        keys = lib.array(norm * keys / np.linalg.norm(keys, axis=-1, keepdims=True), "float64")
        queries, values = lib.array(queries, "float64"), lib.array(values, "float64")
        distance = lib.layer("distance", 0.0, dtype="float64")(queries, keys, values)
        dot = lib.layer("dot", 0.0, dtype="float64")(queries, keys, values)
        distance, dot = [lib.numpy(x) for x in distance], [lib.numpy(x) for x in dot]
    np.testing.assert_allclose(distance[0], dot[0], rtol=1e-7, atol=1e-7)
    np.testing.assert_allclose(distance[1], dot[1], rtol=1e-7, atol=1e-7)
    np.testing.assert_array_equal(np.argsort(distance[1], -1), np.argsort(dot[1], -1))


def test_distance_attention_differs_from_dot_product_for_unequal_norms(lib):
    queries, keys, values = (lib.numpy(x) for x in random_inputs(lib, n=5, m=9, d=4, seed=1))
    keys = keys * np.linspace(0.2, 5.0, 9).reshape(1, 9, 1)
    queries, keys, values = (lib.array(x, "float32") for x in (queries, keys, values))
    _, distance = lib.layer("distance", 0.0)(queries, keys, values)
    _, dot = lib.layer("dot", 0.0)(queries, keys, values)
    assert not np.allclose(lib.numpy(distance), lib.numpy(dot))


def test_distance_attention_is_translation_invariant(lib):
    with lib.precision("float64"):
        queries, keys, values = random_inputs(lib)
        shift = lib.array(np.random.default_rng(2).standard_normal((1, 1, 5)), "float64")
        attention = lib.layer("distance", 0.0, dtype="float64")
        shifted, _ = attention(queries + shift, keys + shift, values)
        plain, _ = attention(queries, keys, values)
        np.testing.assert_allclose(lib.numpy(shifted), lib.numpy(plain), rtol=1e-7, atol=1e-7)


def test_distance_attention_is_a_dot_product_attention_and_leaves_its_inputs_alone(lib):
    assert issubclass(lib.d2l.DistanceAttention, lib.d2l.DotProductAttention)
    inputs = random_inputs(lib, dtype="float32")
    copies = [lib.numpy(x) for x in inputs]
    output, _ = lib.layer("distance", 0.0)(*inputs, lib.array([2, 7]))
    assert lib.dtype_name(output) == "float32"
    assert all(np.array_equal(lib.numpy(x), y) for x, y in zip(inputs, copies))
    queries, keys, values = inputs
    (grad,) = lib.grad(lambda q: lib.total(lib.layer("distance", 0.0)(q, keys, values, lib.array([2, 7]))[0]), queries)
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
def test_distance_attention_errors(lib, shapes, message):
    arrays = [lib.array(np.zeros(shape), "float32") for shape in shapes]
    with pytest.raises(ValueError, match=message):
        lib.layer("distance", 0.0)(*arrays)


# ---------------------------------------------------------------- BilinearAttention
@pytest.mark.parametrize("query_len, key_len", [(4, 5), (6, 3)])
def test_bilinear_attention_names_wrong_lengths(lib, query_len, key_len):
    attention = lib.layer("bilinear", 0.0, query_size=6, key_size=5)
    queries, keys, values = (lib.array(np.zeros(s), "float32") for s in ((2, 1, query_len), (2, 7, key_len), (2, 7, 4)))
    expected = (
        r"expected queries of length 6 and keys of length 5, "
        rf"got queries \(2, 1, {query_len}\), keys \(2, 7, {key_len}\)"
    )
    with pytest.raises(ValueError, match=expected):
        attention(queries, keys, values)


def test_bilinear_attention_checks_the_number_of_pairs(lib):
    attention = lib.layer("bilinear", 0.0, query_size=6, key_size=5)
    queries, keys, values = (lib.array(np.zeros(s), "float32") for s in ((2, 1, 6), (2, 7, 5), (2, 8, 4)))
    with pytest.raises(ValueError, match="same number of key-value pairs"):
        attention(queries, keys, values)


def test_bilinear_attention_on_the_chapter_example_shapes(lib):
    rng = np.random.default_rng(0)
    queries, keys, values = (lib.array(rng.standard_normal(s), "float32") for s in ((2, 1, 20), (2, 10, 2), (2, 10, 4)))
    attention = lib.layer("bilinear", 0.1, query_size=20, key_size=2)
    output, weights = attention(queries, keys, values, lib.array([2, 6]))
    lib.d2l.check_shape(output, (2, 1, 4))
    weights = lib.numpy(weights)
    assert (weights[0, 0, 2:] == 0).all() and (weights[1, 0, 6:] == 0).all()
    assert (weights[0, 0, :2] > 0).all() and (weights[1, 0, :6] > 0).all()


# ---------------------------------------------------------------- attention_cost
def test_attention_cost_formulas(lib):
    cost = lib.d2l.attention_cost(3, 5, 7, 11)
    assert cost["flops"] == 2 * 3 * 5 * (7 + 11) + 6 * 3 * 5 == 630
    io = 3 * 7 + 5 * 7 + 5 * 11 + 3 * 11
    assert cost["bytes_fused"] == 4 * io == 576
    assert cost["bytes"] == 4 * (io + 4 * 3 * 5) == 816


def test_attention_cost_scales(lib):
    base = lib.d2l.attention_cost(64, 128, 32, 16)
    batched = lib.d2l.attention_cost(64, 128, 32, 16, batch_size=8, bytes_per_number=2)
    assert batched["flops"] == 8 * base["flops"]
    assert batched["bytes"] == 4 * base["bytes"] and batched["bytes_fused"] == 4 * base["bytes_fused"]
    assert lib.d2l.attention_cost(128, 256, 32, 16)["flops"] == 4 * base["flops"]


def test_attention_cost_intensity_tends_to_d_plus_v_over_8(lib):
    cost = lib.d2l.attention_cost(1 << 16, 1 << 16, 64, 64)
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
def test_attention_cost_rejects_bad_sizes(lib, kwargs, error):
    sizes = {"n": 2, "m": 3, "d": 4, "v": 5} | kwargs
    with pytest.raises(error, match=next(iter(kwargs))):
        lib.d2l.attention_cost(**sizes)


# ---------------------------------------------------------------- mask_from_valid_lens
def test_mask_from_valid_lens_1d_and_2d(lib):
    mask = lib.d2l.mask_from_valid_lens(lib.array([2, 0]), num_queries=2, num_keys=4)
    assert lib.dtype_name(mask) == "bool" and tuple(mask.shape) == (2, 2, 4)
    assert lib.numpy(mask).astype(int).tolist() == [[[1, 1, 0, 0], [1, 1, 0, 0]], [[0, 0, 0, 0], [0, 0, 0, 0]]]
    mask = lib.numpy(lib.d2l.mask_from_valid_lens(lib.array([[1, 3], [4, 9]]), num_queries=2, num_keys=4))
    assert mask.astype(int).tolist() == [[[1, 0, 0, 0], [1, 1, 1, 0]], [[1, 1, 1, 1], [1, 1, 1, 1]]]
    float_lens = lib.d2l.mask_from_valid_lens(lib.array([[1.0, 3.0], [4.0, 9.0]], "float32"), 2, 4)
    np.testing.assert_array_equal(lib.numpy(float_lens), mask)
    np.testing.assert_array_equal(lib.numpy(lib.d2l.mask_from_valid_lens([[1, 3], [4, 9]], 2, 4)), mask)


@pytest.mark.parametrize("valid_lens", [[2, 7], [[1, 4, 7], [3, 3, 1]]], ids=["1d", "2d"])
def test_mask_matches_masked_softmax(lib, valid_lens):
    X = lib.array(np.random.default_rng(4).uniform(size=(2, 3, 7)) + 0.1, "float32")
    weights = lib.numpy(lib.d2l.masked_softmax(X, lib.array(valid_lens)))
    np.testing.assert_array_equal(lib.numpy(lib.d2l.mask_from_valid_lens(lib.array(valid_lens), 3, 7)), weights > 0)


@pytest.mark.filterwarnings("ignore:overflow encountered in cast:RuntimeWarning")  # 1e20 in float16
@pytest.mark.parametrize("length", [math.inf, 1e20], ids=["inf", "1e20"])
@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64"])
def test_mask_from_valid_lens_infinite_or_huge_float_length_masks_nothing(lib, length, dtype):
    """Float lengths are clipped before the cast to an integer: inf or 1e20 must not overflow."""
    with lib.precision(dtype):
        mask = lib.d2l.mask_from_valid_lens(lib.array([length, 2.0], dtype), num_queries=2, num_keys=4)
        assert lib.numpy(mask).astype(int).tolist() == [[[1, 1, 1, 1], [1, 1, 1, 1]], [[1, 1, 0, 0], [1, 1, 0, 0]]]
        per_query = lib.array([[length, 1.0], [0.0, length]], dtype)
        mask = lib.numpy(lib.d2l.mask_from_valid_lens(per_query, num_queries=2, num_keys=4))
        assert mask.astype(int).tolist() == [[[1, 1, 1, 1], [1, 0, 0, 0]], [[0, 0, 0, 0], [1, 1, 1, 1]]]
        weights = lib.d2l.masked_softmax(lib.array(np.random.default_rng(5).uniform(size=(2, 2, 4)) + 0.1), per_query)
        np.testing.assert_array_equal(mask, lib.numpy(weights) > 0)


@pytest.mark.parametrize(
    "valid_lens, dtype, error, message",
    [
        ([[1, 2, 3]], None, ValueError, r"shape \(batch size,\) or \(batch size, 2\)"),
        (np.zeros((1, 2, 3)), "int32", ValueError, "shape"),
        ([-1, 2], None, ValueError, "negative"),
        ([1.5, 2.0], None, ValueError, "whole numbers"),
        ([True, False], None, TypeError, "integer lengths"),
    ],
    ids=["2-D", "3-D", "negative", "fractional", "bool"],
)
def test_mask_from_valid_lens_errors(lib, valid_lens, dtype, error, message):
    with pytest.raises(error, match=message):
        lib.d2l.mask_from_valid_lens(lib.array(valid_lens, dtype), num_queries=2, num_keys=4)
