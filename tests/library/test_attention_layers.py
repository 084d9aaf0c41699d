"""``DotProductAttention`` and ``AdditiveAttention`` in every framework: values by hand, the
formula, the chapter's example, masking, the weights of each call, dtypes and gradients.

Each framework's layers are called through ``lib.layer`` (training or not); what only one
framework has (parameters and state dicts, Flax trees and ``jit``, Keras weights, dtype
policies and models, how each one's dropout is seeded) is in
``<framework>/test_attention_layers.py``.
"""

from __future__ import annotations

import math

import numpy as np
import pytest


def chapter_data(lib, query_size=2):
    """The chapter's example: one query per example, ten key-value pairs, lengths 2 and 6."""
    queries = lib.randn((2, 1, query_size), seed=0)
    return queries, lib.randn((2, 10, 2), seed=1), lib.randn((2, 10, 4), seed=2), lib.array([2, 6])


def check_chapter_example(lib, out, weights):
    """The chapter's example (lengths 2 and 6 of 10 keys): output and weights."""
    lib.d2l.check_shape(out, (2, 1, 4))
    lib.d2l.check_shape(weights, (2, 1, 10))
    weights = lib.numpy(weights)
    assert (weights[0, 0, 2:] == 0).all() and (weights[1, 0, 6:] == 0).all()
    assert (weights[0, 0, :2] > 0).all() and (weights[1, 0, :6] > 0).all()
    np.testing.assert_allclose(weights.sum(-1), np.ones((2, 1)), rtol=1e-6)


def additive_by_hand(queries, keys, values, lens, W_q, W_k, w_v, reference_masked_softmax):
    """Scores w_v . tanh(W_q q + W_k k), one pair at a time, in float64 NumPy."""
    batch_size, num_queries, _ = queries.shape
    num_pairs = keys.shape[1]
    scores = np.empty((batch_size, num_queries, num_pairs))
    for b in range(batch_size):
        for i in range(num_queries):
            for j in range(num_pairs):
                scores[b, i, j] = w_v @ np.tanh(W_q @ queries[b, i] + W_k @ keys[b, j])
    weights = reference_masked_softmax(scores, lens)
    return weights, weights @ values


# ------------------------------------------------------------------ DotProductAttention
def test_dot_product_values_by_hand(lib):
    with lib.precision("float64"):
        queries = lib.array([[[1.0, 0.0]]], "float64")
        keys = lib.array([[[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]], "float64")
        values = lib.array([[[1.0, 10.0], [2.0, 20.0], [3.0, 30.0]]], "float64")
        out, weights = lib.layer("dot", 0.0, dtype="float64")(queries, keys, values, lib.array([2]))
        out, weights = lib.numpy(out), lib.numpy(weights)
    # scores q.k / sqrt(2): 1/sqrt(2), 0 and (masked) 1/sqrt(2)
    a, b = math.exp(1 / math.sqrt(2)), math.exp(0.0)
    w = [a / (a + b), b / (a + b), 0.0]
    np.testing.assert_allclose(weights, [[w]], rtol=1e-14)
    np.testing.assert_allclose(out, [[[w[0] * 1 + w[1] * 2, w[0] * 10 + w[1] * 20]]], rtol=1e-14)


@pytest.mark.parametrize("lens", [None, [3, 1], [[1, 2, 0, 5], [7, 3, 2, 1]]], ids=["none", "1-D", "2-D"])
def test_dot_product_matches_the_formula_in_float64(lib, lens, reference_masked_softmax):
    with lib.precision("float64"):
        queries, keys, values = (lib.randn((2, n, m), seed=4 + n, dtype="float64") for n, m in ((4, 3), (5, 3), (5, 6)))
        attention = lib.layer("dot", 0.3, dtype="float64")
        out, weights = attention(queries, keys, values, None if lens is None else lib.array(lens))
        assert lib.dtype_name(out) == lib.dtype_name(weights) == "float64"
    queries, keys, values = (lib.numpy(x) for x in (queries, keys, values))
    expected = reference_masked_softmax(queries @ keys.transpose(0, 2, 1) / math.sqrt(3), lens)
    np.testing.assert_allclose(lib.numpy(weights), expected, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(lib.numpy(out), expected @ values, rtol=1e-12, atol=1e-14)


def test_dot_product_chapter_example(lib):
    check_chapter_example(lib, *lib.layer("dot", 0.5)(*chapter_data(lib)))


def test_dot_product_weights_belong_to_each_call(lib):
    queries, keys, values, _ = chapter_data(lib)
    attention = lib.layer("dot", 0.0)
    _, first = attention(queries, keys, values, lib.array([2, 6]))
    _, second = attention(queries, keys, values, lib.array([10, 1]))
    assert second is not first
    first, second = lib.numpy(first), lib.numpy(second)
    assert (first[0, :, 2:] == 0).all() and (first[1, :, 6:] == 0).all()
    assert (second[1, 0, 1:] == 0).all() and (second[0] > 0).all()


@pytest.mark.parametrize("training", [False, True], ids=["evaluation", "training"])
def test_dot_product_backpropagates_and_ignores_padded_keys(lib, training):
    attention = lib.layer("dot", 0.1)
    queries, keys, values = (lib.randn((2, n, 3), seed=n) for n in (4, 5, 5))

    def loss(q, k, v):
        return lib.total(attention(q, k, v, lib.array([0, 3]), training=training)[0])

    grads = lib.grad(loss, queries, keys, values)
    assert all(np.isfinite(g).all() for g in grads)
    _, keys_grad, values_grad = grads
    assert (keys_grad[0] == 0).all() and (values_grad[0] == 0).all()  # length 0: no key is used
    assert (keys_grad[1, 3:] == 0).all() and (values_grad[1, 3:] == 0).all()
    if not training:  # without dropout, every key within the length gets a gradient
        assert (values_grad[1, :3] != 0).all()


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float64"])
def test_dot_product_computes_in_other_dtypes(lib, dtype):
    """The dtype of the inputs (PyTorch, JAX) or of the layer's policy (TensorFlow)."""
    with lib.precision(dtype):
        queries, keys, values = (lib.randn((2, n, m), seed=n, dtype=dtype) for n, m in ((3, 8), (5, 8), (5, 4)))
        out, weights = lib.layer("dot", 0.0, dtype=dtype)(queries, keys, values, lib.array([[0, 2, 5], [1, 4, 9]]))
        assert lib.dtype_name(out) == dtype and lib.dtype_name(weights) == dtype
        out, weights = lib.numpy(out), lib.numpy(weights)
    assert np.isfinite(out).all()
    assert (out[0, 0] == 0).all() and (weights[0, 1, 2:] == 0).all()


# ------------------------------------------------------------------ AdditiveAttention
def test_additive_values_by_hand(lib, reference_masked_softmax):
    rng = np.random.default_rng(6)
    W_q, W_k, w_v = rng.standard_normal((8, 5)), rng.standard_normal((8, 2)), rng.standard_normal(8)
    lens = [[1, 4, 0], [2, 3, 9]]
    with lib.precision("float64"):
        queries, keys, values = (lib.randn((2, n, m), seed=n, dtype="float64") for n, m in ((3, 5), (4, 2), (4, 3)))
        attention = lib.layer("additive", 0.0, num_hiddens=8, dtype="float64")
        attention.set_additive(W_q, W_k, w_v)
        out, weights = attention(queries, keys, values, lib.array(lens))
        out, weights = lib.numpy(out), lib.numpy(weights)
    queries, keys, values = (lib.numpy(x) for x in (queries, keys, values))
    expected_weights, expected = additive_by_hand(queries, keys, values, lens, W_q, W_k, w_v, reference_masked_softmax)
    np.testing.assert_allclose(weights, expected_weights, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(out, expected, rtol=1e-12, atol=1e-14)


def test_additive_chapter_example(lib):
    attention = lib.layer("additive", 0.1, num_hiddens=8)
    check_chapter_example(lib, *attention(*chapter_data(lib, query_size=20)))


def test_additive_masking_lengths_zero_and_none(lib):
    queries, keys, values = (lib.randn((2, n, m), seed=8 + n) for n, m in ((3, 5), (4, 2), (4, 3)))
    attention = lib.layer("additive", 0.0, num_hiddens=6)
    out, weights = (lib.numpy(x) for x in attention(queries, keys, values, lib.array([[0, 1, 4], [2, 0, 3]])))
    assert (out[0, 0] == 0).all() and (out[1, 1] == 0).all()
    assert (weights[0, 1, 1:] == 0).all()
    unmasked, unmasked_weights = attention(queries, keys, values)  # valid_lens defaults to None: no masking
    assert (lib.numpy(unmasked_weights) > 0).all()
    full_length, _ = attention(queries, keys, values, lib.array([4, 4]))
    np.testing.assert_allclose(
        lib.numpy(unmasked), lib.numpy(full_length), rtol=lib.unmasked_rtol, atol=lib.unmasked_atol
    )


def test_additive_backpropagates_to_its_inputs_but_not_past_the_lengths(lib):
    queries, keys, values = (lib.randn((2, n, m), seed=22 + n) for n, m in ((3, 5), (4, 2), (4, 3)))
    before = [lib.numpy(x) for x in (queries, keys, values)]
    attention = lib.layer("additive", 0.2, num_hiddens=6)
    attention(queries, keys, values)  # sizes the layer

    def loss(k, v):
        return lib.total(attention(queries, k, v, lib.array([1, 3]), training=True)[0])

    keys_grad, values_grad = lib.grad(loss, keys, values)
    assert np.isfinite(keys_grad).all() and np.isfinite(values_grad).all()
    assert (keys_grad[0, 1:] == 0).all() and (values_grad[1, 3:] == 0).all()
    assert all(np.array_equal(lib.numpy(x), b) for x, b in zip((queries, keys, values), before))
