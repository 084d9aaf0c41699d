"""The exercise solutions' library pieces in JAX only: ``DistanceAttention`` under ``jit`` and
``grad``, ``BilinearAttention``'s kernel (by hand, the identity, its gradient, typed inputs),
``mask_from_valid_lens`` under ``jit`` and ``jax.nn.dot_product_attention``. What every
framework shares is in ``tests/library/test_solutions.py``."""

from __future__ import annotations

import inspect
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


VALID_LENS = [None, jnp.array([2, 7]), jnp.array([[1, 4, 7], [3, 3, 0]])]

# The built-in is the reference here, not a dependency: the library does not call it, so the
# releases that pyproject.toml allows without it (JAX 0.4.30) skip the comparisons.
BUILTIN = getattr(jax.nn, "dot_product_attention", None)
needs_builtin = pytest.mark.skipif(BUILTIN is None, reason="jax.nn.dot_product_attention is new in JAX 0.4.31")
needs_builtin_lengths = pytest.mark.skipif(
    BUILTIN is None or "key_value_seq_lengths" not in inspect.signature(BUILTIN).parameters,
    reason="key_value_seq_lengths of jax.nn.dot_product_attention is new in JAX 0.4.32",
)


# ---------------------------------------------------------------- DistanceAttention


def test_distance_attention_is_a_dot_product_attention_under_jit_and_grad():
    assert issubclass(d2l.DistanceAttention, d2l.DotProductAttention)
    queries, keys, values = random_inputs()
    attention = d2l.DistanceAttention(dropout=0.1)

    def loss(q):
        return attention.apply({}, q, keys, values, jnp.array([2, 7]))[0].sum()

    grad = np.asarray(jax.jit(jax.grad(loss))(queries))
    assert np.isfinite(grad).all() and (grad != 0).any()


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


def test_bilinear_attention_checks_batch_and_pairs():
    attention = d2l.BilinearAttention(dropout=0.0, query_size=6, key_size=5)
    with pytest.raises(ValueError, match="same number of key-value pairs"):
        attention.init(jax.random.key(0), jnp.zeros((2, 1, 6)), jnp.zeros((2, 7, 5)), jnp.zeros((2, 8, 4)))
    with pytest.raises(TypeError, match="keys must be a jax.Array"):
        attention.init(jax.random.key(0), jnp.zeros((2, 1, 6)), [[0.0] * 5], jnp.zeros((2, 8, 4)))


# ---------------------------------------------------------------- mask_from_valid_lens


def test_mask_from_valid_lens_under_jit():
    mask = jax.jit(d2l.mask_from_valid_lens, static_argnums=(1, 2))(jnp.array([[1.0, 3.0], [4.0, 9.0]]), 2, 4)
    np.testing.assert_array_equal(mask, d2l.mask_from_valid_lens([[1, 3], [4, 9]], 2, 4))


@needs_builtin
@pytest.mark.parametrize("valid_lens", [jnp.array([2, 7]), jnp.array([[1, 4, 7], [3, 3, 1]])], ids=["1d", "2d"])
def test_dot_product_attention_equals_builtin_with_mask(valid_lens):
    queries, keys, values = random_inputs(v=5)  # the built-in wants values as long as the keys
    output, _ = d2l.DotProductAttention(dropout=0.0).apply({}, queries, keys, values, valid_lens)
    mask = d2l.mask_from_valid_lens(valid_lens, 3, 7)
    builtin = jax.nn.dot_product_attention(
        queries[:, :, None], keys[:, :, None], values[:, :, None], mask=mask[:, None]
    )
    np.testing.assert_allclose(output, np.asarray(builtin)[:, :, 0], rtol=1e-5, atol=1e-6)


@needs_builtin_lengths
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
