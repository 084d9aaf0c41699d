"""Property-based tests (hypothesis) of ``d2l_lib.jax`` only; the properties of
``masked_softmax`` that every framework shares, eagerly, are in
``tests/library/test_properties.py``.

* masked_softmax under ``jax.jit`` (with traced lengths): weights are a masked distribution
  equal to the naive float64 reference, and their gradient is finite and 0 past the lengths.
* DotProductAttention equals ``jax.nn.dot_product_attention`` given the equivalent boolean
  mask (True = attend), except for rows of valid length 0: ours is a zero vector, while the
  built-in, which fills masked scores with a large finite number and keeps their weights,
  returns the mean of all values.
* Dropout acts only when training: evaluation is deterministic and equals no dropout;
  training is reproducible under a key and keeps the weights it returns.

JAX compiles once per shape and dtype, so the shapes are drawn from a few sizes each.
"""

from __future__ import annotations

import jax
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jax import numpy as jnp

from d2l_lib import jax as d2l

# Modest and reproducible: CI replays the same examples (derandomize) and writes no database.
FAST = settings(max_examples=30, deadline=None, derandomize=True, database=None)
FEWER = settings(max_examples=12, deadline=None, derandomize=True, database=None)

DTYPES = [jnp.float16, jnp.bfloat16, jnp.float32]


@st.composite
def scores_and_lengths(draw, dtypes=DTYPES):
    """Scores (batch, queries, keys) in a drawn dtype and scale, and lengths that are None, 1-D
    or 2-D, from 0 to past the number of keys: a jax.Array of int32 or float32, or a list."""
    batch_size = draw(st.sampled_from([1, 2]))
    num_queries = draw(st.sampled_from([1, 3]))
    num_keys = draw(st.sampled_from([1, 4, 7]))
    dtype = draw(st.sampled_from(dtypes))
    scale = draw(st.sampled_from([0.0, 1.0, 10.0, 1000.0]))
    rng = np.random.default_rng(draw(st.integers(0, 2**31 - 1)))
    X = jnp.asarray((rng.standard_normal((batch_size, num_queries, num_keys)) * scale).astype(dtype))
    kind = draw(st.sampled_from(["none", "1-D", "2-D"]))
    if kind == "none":
        return X, None
    shape = (batch_size,) if kind == "1-D" else (batch_size, num_queries)
    lens = np.array(
        draw(st.lists(st.integers(0, num_keys + 2), min_size=int(np.prod(shape)), max_size=int(np.prod(shape))))
    ).reshape(shape)
    form = draw(st.sampled_from(["int32", "float32", "list"]))
    return X, lens.tolist() if form == "list" else jnp.asarray(lens, dtype=form)


def _per_query(lens, shape) -> np.ndarray:
    batch_size, num_queries, num_keys = shape
    if lens is None:
        return np.full((batch_size, num_queries), num_keys)
    lens = np.asarray(lens, dtype=np.int64).reshape(batch_size, -1)
    return np.broadcast_to(lens, (batch_size, num_queries))


@FEWER
@given(scores_and_lengths())
def test_under_jit_with_traced_lengths_too(masked_distribution, case):
    X, lens = case
    lens = None if lens is None else jnp.asarray(lens)
    weights = jax.jit(d2l.masked_softmax)(X, lens)
    assert weights.dtype == X.dtype
    masked_distribution(np.asarray(weights, np.float64), np.asarray(X, np.float64), lens, np.dtype(X.dtype).name)


@FEWER
@given(scores_and_lengths(dtypes=[jnp.float32]))
def test_gradient_is_finite_and_vanishes_past_the_length(case):
    X, lens = case
    upstream = jnp.asarray(np.random.default_rng(0).standard_normal(X.shape), dtype=X.dtype)
    lens = None if lens is None else jnp.asarray(lens)
    grad = np.asarray(jax.jit(jax.grad(lambda x, lengths: (d2l.masked_softmax(x, lengths) * upstream).sum()))(X, lens))
    padding = np.arange(X.shape[-1]) >= _per_query(lens, X.shape)[..., None]
    assert np.isfinite(grad).all() and (grad[padding] == 0).all()


@st.composite
def attention_inputs(draw):
    """Queries, keys and values of one length d (the built-in wants values as long as keys) and
    lengths that are None, 1-D or 2-D."""
    batch_size, num_queries = draw(st.sampled_from([1, 2])), draw(st.sampled_from([1, 3]))
    num_pairs, d = draw(st.sampled_from([1, 4, 7])), draw(st.sampled_from([2, 8]))
    rng = np.random.default_rng(draw(st.integers(0, 2**31 - 1)))
    queries, keys, values = (
        jnp.asarray(rng.standard_normal((batch_size, n, d)), dtype=jnp.float32)
        for n in (num_queries, num_pairs, num_pairs)
    )
    kind = draw(st.sampled_from(["none", "1-D", "2-D"]))
    if kind == "none":
        return queries, keys, values, None
    shape = (batch_size,) if kind == "1-D" else (batch_size, num_queries)
    count = int(np.prod(shape))
    lens = draw(st.lists(st.integers(0, num_pairs + 1), min_size=count, max_size=count))
    return queries, keys, values, jnp.array(lens).reshape(shape)


@jax.jit
def _builtin_one_head(queries, keys, values, mask):
    """jax.nn.dot_product_attention with one head (axis 2), compiled once per shape."""
    out = jax.nn.dot_product_attention(
        queries[:, :, None], keys[:, :, None], values[:, :, None], mask=None if mask is None else mask[:, None]
    )
    return out[:, :, 0]


@FEWER
@given(attention_inputs(), st.sampled_from([0.0, 0.3, 0.9]))
def test_dot_product_attention_equals_the_builtin(inputs, p):
    if not hasattr(jax.nn, "dot_product_attention"):  # the library does not use it: it is the reference
        pytest.skip("jax.nn.dot_product_attention is new in JAX 0.4.31")
    queries, keys, values, lens = inputs
    ours, _ = jax.jit(d2l.DotProductAttention(dropout=p).apply)({}, queries, keys, values, lens)
    ours = np.asarray(ours)
    if lens is None:
        np.testing.assert_allclose(ours, _builtin_one_head(queries, keys, values, None), rtol=1e-5, atol=1e-6)
        return
    mask = d2l.mask_from_valid_lens(lens, queries.shape[1], keys.shape[1])
    theirs = np.asarray(_builtin_one_head(queries, keys, values, mask))
    empty = _per_query(lens, (*queries.shape[:2], keys.shape[1])) == 0
    assert (ours[empty] == 0).all()  # no key to attend: a zero row, by definition
    mean_values = np.broadcast_to(np.asarray(values).mean(axis=1, keepdims=True), ours.shape)
    np.testing.assert_allclose(theirs[empty], mean_values[empty], rtol=1e-5, atol=1e-6)  # theirs: all keys alike
    np.testing.assert_allclose(ours[~empty], theirs[~empty], rtol=1e-5, atol=1e-6)


SMALL = tuple(
    jnp.asarray(np.random.default_rng(seed).standard_normal(shape), dtype=jnp.float32)
    for seed, shape in ((0, (2, 3, 4)), (1, (2, 5, 4)), (2, (2, 5, 6)))
)


@FEWER
@given(st.floats(0.1, 0.9), st.integers(0, 2**31 - 1), st.sampled_from([None, (1, 5), (0, 3)]))
def test_dropout_acts_in_training_only(p, seed, lens):
    """One shape throughout: random dropout is compiled per shape."""
    lens = None if lens is None else jnp.array(lens)
    attention, no_dropout = d2l.DotProductAttention(dropout=p), d2l.DotProductAttention(dropout=0.0)
    evaluated, weights = attention.apply({}, *SMALL, lens)
    np.testing.assert_array_equal(attention.apply({}, *SMALL, lens)[0], evaluated)
    np.testing.assert_array_equal(no_dropout.apply({}, *SMALL, lens, training=True)[0], evaluated)
    trained, trained_weights = attention.apply({}, *SMALL, lens, training=True, rngs={"dropout": jax.random.key(seed)})
    again, _ = attention.apply({}, *SMALL, lens, training=True, rngs={"dropout": jax.random.key(seed)})
    np.testing.assert_array_equal(again, trained)
    np.testing.assert_array_equal(trained_weights, weights)  # the returned weights are before dropout
