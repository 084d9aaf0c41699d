"""The lesson's JAX code and the library's give the same results.

As ``tests/library/test_lesson_equals_library.py`` does for PyTorch: the chapter's short
``masked_softmax``, Flax layers and exercise solutions against ``d2l_lib.jax``'s, on
random and edge inputs in float32 and float16. The library compiles its masking with
``jax.jit``, where XLA may fuse the exponentials and round them differently from the
lesson's operation-by-operation run, so the weights are compared to within one unit in
the last place, and their zeros exactly; the outputs to within float rounding.
"""

from __future__ import annotations

import jax
import numpy as np
import pytest
from jax import numpy as jnp

from d2l_lib import jax as d2l

LENGTHS = {
    "none": None,
    "1-D": [2, 3],
    "1-D, 0 and full": [0, 5],
    "2-D": [[1, 3, 5], [2, 4, 0]],
    "2-D, overlong": [[9, 1, 5], [5, 0, 7]],
}
DTYPES = [jnp.float32, jnp.float16]


def lengths(case):
    return None if LENGTHS[case] is None else jnp.array(LENGTHS[case])


def inputs(dtype, seed=0, d=4, v=3, query_size=None):
    keys = jax.random.split(jax.random.key(seed), 3)
    shapes = ((2, 3, query_size or d), (2, 5, d), (2, 5, v))
    return tuple(jax.random.normal(key, shape).astype(dtype) for key, shape in zip(keys, shapes))


def close(actual, expected):
    assert actual.dtype == expected.dtype
    tolerance = 2e-3 if actual.dtype == jnp.float16 else 1e-5
    np.testing.assert_allclose(
        np.asarray(actual, np.float64), np.asarray(expected, np.float64), rtol=tolerance, atol=1e-6
    )


def same_weights(actual, expected):
    assert actual.dtype == expected.dtype
    np.testing.assert_array_max_ulp(np.asarray(actual), np.asarray(expected), maxulp=1)
    assert np.array_equal(np.asarray(actual) == 0, np.asarray(expected) == 0), "zeros in other places"


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda dtype: dtype.__name__)
@pytest.mark.parametrize("case", LENGTHS)
def test_masked_softmax(lesson, case, dtype):
    X = (4 * jax.random.normal(jax.random.key(1), (2, 3, 5))).astype(dtype)
    weights = lesson("jax")["masked_softmax"](X, lengths(case))
    assert weights.dtype == dtype and not jnp.isnan(weights).any()
    same_weights(weights, d2l.masked_softmax(X, lengths(case)))


def test_masked_softmax_large_scores_of_every_dtype(lesson):
    for dtype in (jnp.float32, jnp.bfloat16, jnp.float16):
        X = (100 * jax.random.normal(jax.random.key(2), (4, 64, 300))).astype(dtype)
        lens = jnp.array([0, 1, 150, 300])
        same_weights(
            lesson("jax")["masked_softmax"](X, lens).astype(jnp.float32),
            d2l.masked_softmax(X, lens).astype(jnp.float32),
        )


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda dtype: dtype.__name__)
@pytest.mark.parametrize("case", LENGTHS)
def test_dot_product_attention(lesson, case, dtype):
    queries, keys, values = inputs(dtype)
    mine = lesson("jax")["DotProductAttention"](dropout=0.5).apply({}, queries, keys, values, lengths(case))
    theirs = d2l.DotProductAttention(dropout=0.5).apply({}, queries, keys, values, lengths(case))
    close(mine[0], theirs[0])
    same_weights(mine[1], theirs[1])


@pytest.mark.parametrize("case", LENGTHS)
def test_additive_attention(lesson, case):
    queries, keys, values = inputs(jnp.float32, query_size=6)
    params = d2l.AdditiveAttention(num_hiddens=8, dropout=0.1).init(
        jax.random.key(3), queries, keys, values, lengths(case)
    )
    mine = lesson("jax")["AdditiveAttention"](num_hiddens=8, dropout=0.1).apply(
        params, queries, keys, values, lengths(case)
    )
    theirs = d2l.AdditiveAttention(num_hiddens=8, dropout=0.1).apply(params, queries, keys, values, lengths(case))
    close(mine[0], theirs[0])
    same_weights(mine[1], theirs[1])


@pytest.mark.parametrize("case", LENGTHS)
def test_exercise_solutions(lesson, case):
    queries, keys, values = inputs(jnp.float32)
    mine = lesson("jax")["DistanceAttention"](dropout=0.0).apply({}, queries, keys, values, lengths(case))
    theirs = d2l.DistanceAttention(dropout=0.0).apply({}, queries, keys, values, lengths(case))
    close(mine[0], theirs[0])
    same_weights(mine[1], theirs[1])

    queries, keys, values = inputs(jnp.float32, query_size=6)
    library = d2l.BilinearAttention(query_size=6, key_size=4, dropout=0.0)
    params = library.init(jax.random.key(4), queries, keys, values, lengths(case))
    mine = lesson("jax")["BilinearAttention"](query_size=6, key_size=4, dropout=0.0).apply(
        params, queries, keys, values, lengths(case)
    )
    theirs = library.apply(params, queries, keys, values, lengths(case))
    close(mine[0], theirs[0])
    same_weights(mine[1], theirs[1])
