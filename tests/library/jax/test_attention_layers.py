"""``DotProductAttention`` and ``AdditiveAttention`` in Flax linen only: no parameters, gradients
and results under ``jax.jit``, dropout keys, D2L-shaped parameter trees and Flax fields.
What every framework shares is in ``tests/library/test_attention_layers.py``.

JAX compiles every operation for every new shape, so the tests share a few input shapes,
give AdditiveAttention its parameters rather than initialising it where they can, and check
results as NumPy arrays.
"""

from __future__ import annotations

import jax
import numpy as np
import pytest
from flax import linen as nn
from jax import numpy as jnp

from d2l_lib import jax as d2l

D2L_ADDITIVE_PARAMS = {"W_k", "W_q", "w_v"}


def _randn(*shape, seed=0, dtype=np.float32):
    return jnp.asarray(np.random.default_rng(seed).standard_normal(shape).astype(dtype))


def _small(seed: int = 0, key_size: int = 4):
    """The inputs most tests share: queries (2, 3, 4), keys (2, 5, key_size), values (2, 5, 6)."""
    return _randn(2, 3, 4, seed=seed), _randn(2, 5, key_size, seed=seed + 1), _randn(2, 5, 6, seed=seed + 2)


def _chapter_data(seed: int = 0):
    """The chapter's example: one query per example, ten key-value pairs, lengths 2 and 6."""
    return (
        _randn(2, 1, 2, seed=seed),
        _randn(2, 10, 2, seed=seed + 1),
        _randn(2, 10, 4, seed=seed + 2),
        d2l.tensor([2, 6]),
    )


def _d2l_params(W_q, W_k, w_v):
    """A parameter tree as D2L's Flax AdditiveAttention has it; Dense kernels are (in, out), so
    the W_q (h x q) and W_k (h x k) of the text appear transposed."""
    return {
        "params": {
            "W_q": {"kernel": jnp.asarray(W_q.T, dtype=jnp.float32)},
            "W_k": {"kernel": jnp.asarray(W_k.T, dtype=jnp.float32)},
            "w_v": {"kernel": jnp.asarray(w_v[:, None], dtype=jnp.float32)},
        }
    }


def _random_additive_params(query_size=4, key_size=2, num_hiddens=8, seed=6):
    rng = np.random.default_rng(seed)
    W_q, W_k = rng.standard_normal((num_hiddens, query_size)), rng.standard_normal((num_hiddens, key_size))
    w_v = rng.standard_normal(num_hiddens)
    return (W_q, W_k, w_v), _d2l_params(W_q, W_k, w_v)


def _check_chapter_example(out, weights):
    """The chapter's example (lengths 2 and 6 of 10 keys): output and weights."""
    d2l.check_shape(out, (2, 1, 4))
    d2l.check_shape(weights, (2, 1, 10))
    weights = np.asarray(weights)
    assert (weights[0, 0, 2:] == 0).all() and (weights[1, 0, 6:] == 0).all()
    assert (weights[0, 0, :2] > 0).all() and (weights[1, 0, :6] > 0).all()
    np.testing.assert_allclose(weights.sum(-1), np.ones((2, 1)), rtol=1e-6)


# ------------------------------------------------------------------ DotProductAttention


def test_dot_product_chapter_example():
    (out, weights), params = d2l.DotProductAttention(dropout=0.5).init_with_output(jax.random.key(0), *_chapter_data())
    _check_chapter_example(out, weights)
    assert params == {}  # no parameters


def test_dot_product_backpropagates_under_jit_and_ignores_padded_keys():
    attention = d2l.DotProductAttention(dropout=0.1)

    def loss(q, k, v):
        return attention.apply({}, q, k, v, jnp.array([0, 3]))[0].sum()

    grads = [np.asarray(g) for g in jax.jit(jax.grad(loss, argnums=(0, 1, 2)))(*_small())]
    assert all(np.isfinite(g).all() for g in grads)
    _, keys_grad, values_grad = grads
    assert (keys_grad[0] == 0).all() and (values_grad[0] == 0).all()  # length 0: no key is used
    assert (keys_grad[1, 3:] == 0).all() and (values_grad[1, 3:] == 0).all()
    assert (values_grad[1, :3] != 0).all()


def test_dot_product_under_jit_equals_eager():
    attention = d2l.DotProductAttention(dropout=0.5)
    eager = attention.apply({}, *_chapter_data())
    jitted = jax.jit(attention.apply)({}, *_chapter_data())
    for a, b in zip(eager, jitted):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)


# ------------------------------------------------------------------ dropout (both layers)
MAKERS = {
    "dot": (lambda p: d2l.DotProductAttention(dropout=p), 4, {}),
    "additive": (lambda p: d2l.AdditiveAttention(num_hiddens=8, dropout=p), 2, _random_additive_params()[1]),
}


@pytest.mark.parametrize("name", MAKERS)
def test_dropout_acts_when_training_only(name):
    make, key_size, params = MAKERS[name]
    queries, keys, values = _small(key_size=key_size)  # no lengths: every weight is positive
    attention, no_dropout = make(0.5), make(0.0)
    evaluated, eval_weights = attention.apply(params, queries, keys, values)  # training=False
    np.testing.assert_array_equal(attention.apply(params, queries, keys, values)[0], evaluated)
    np.testing.assert_array_equal(no_dropout.apply(params, queries, keys, values, training=True)[0], evaluated)

    def train(seed):
        return attention.apply(
            params,
            queries,
            keys,
            values,
            training=True,
            rngs={"dropout": jax.random.key(seed)},
            capture_intermediates=True,
        )

    (trained, weights), state = train(11)
    np.testing.assert_array_equal(train(11)[0][0], trained)  # the same key: the same result
    assert not np.allclose(train(12)[0][0], trained)  # another key: another result
    assert not np.allclose(trained, evaluated)  # 0.5 dropout on 30 weights changes the output
    np.testing.assert_array_equal(weights, eval_weights)  # the returned weights are before dropout
    dropped = np.asarray(state["intermediates"]["Dropout_0"]["__call__"][0])
    kept = dropped != 0
    assert 0.2 < kept.mean() < 0.8
    np.testing.assert_allclose(dropped[kept], (np.asarray(weights) / 0.5)[kept], rtol=1e-6)  # scaled by 1/(1-p)
    np.testing.assert_allclose(trained, dropped @ np.asarray(values), rtol=1e-5, atol=1e-6)  # on the weights


@pytest.mark.parametrize("name", MAKERS)
def test_training_without_a_dropout_key_is_a_flax_error(name):
    make, key_size, params = MAKERS[name]
    with pytest.raises(Exception, match='needs PRNG for "dropout"'):
        make(0.5).apply(params, *_small(key_size=key_size), training=True)


# ------------------------------------------------------------------ AdditiveAttention


def test_additive_chapter_example_parameter_names_shapes_and_round_trip():
    _, keys, values, valid_lens = _chapter_data()
    queries = _randn(2, 1, 20, seed=1)
    attention = d2l.AdditiveAttention(num_hiddens=8, dropout=0.1)
    (out, weights), params = attention.init_with_output(jax.random.key(0), queries, keys, values, valid_lens)
    _check_chapter_example(out, weights)
    assert set(params) == {"params"} and set(params["params"]) == D2L_ADDITIVE_PARAMS
    shapes = jax.tree.map(jnp.shape, params["params"])
    assert shapes == {"W_q": {"kernel": (20, 8)}, "W_k": {"kernel": (2, 8)}, "w_v": {"kernel": (8, 1)}}  # no biases
    # A tree of plain NumPy arrays (as saved to disk, say) gives the same result in a new layer.
    restored = jax.tree.map(np.asarray, params)
    again, _ = d2l.AdditiveAttention(num_hiddens=8, dropout=0.1).apply(restored, queries, keys, values, valid_lens)
    np.testing.assert_array_equal(again, out)


def test_additive_backpropagates_to_its_parameters():
    queries, keys, values = _small(key_size=2)
    attention = d2l.AdditiveAttention(num_hiddens=8, dropout=0.2)
    params = _random_additive_params()[1]

    def loss(params, keys, values):
        out, _ = attention.apply(
            params, queries, keys, values, jnp.array([1, 3]), training=True, rngs={"dropout": jax.random.key(3)}
        )
        return (out**2).sum()

    grads, keys_grad, values_grad = jax.grad(loss, argnums=(0, 1, 2))(params, keys, values)
    assert jax.tree.structure(grads) == jax.tree.structure(params)
    leaves = [np.asarray(g) for g in jax.tree.leaves(grads)]
    assert all(np.isfinite(g).all() and (g != 0).any() for g in leaves)
    assert (np.asarray(keys_grad)[0, 1:] == 0).all() and (np.asarray(values_grad)[1, 3:] == 0).all()


def test_layers_are_flax_modules_with_d2l_fields():
    assert issubclass(d2l.DotProductAttention, nn.Module) and issubclass(d2l.AdditiveAttention, nn.Module)
    assert d2l.DotProductAttention(0.5).dropout == 0.5
    attention = d2l.AdditiveAttention(8, 0.1)
    assert (attention.num_hiddens, attention.dropout) == (8, 0.1)
