"""Clear errors in JAX only: string lengths, inputs that are not arrays, and errors under
``jax.jit``, where shape errors are raised while tracing. What every framework shares is in
``tests/library/test_errors.py``."""

from __future__ import annotations

import jax
import numpy as np
import pytest
from jax import numpy as jnp

from d2l_lib import jax as d2l

X = jnp.asarray(np.random.default_rng(0).uniform(size=(2, 3, 4)), dtype=jnp.float32)  # (batch, queries, keys)
LENS_SHAPES = "valid_lens must have shape (2,) or (2, 3) for X of shape (2, 3, 4)"


# ------------------------------------------------------------------ masked_softmax: valid_lens


def test_numpy_strings_are_not_lengths(raises):
    lens = np.array(["1", "2"])
    raises(TypeError, lambda: d2l.masked_softmax(X, lens), "valid_lens must hold integer lengths", "got dtype <U1")


# ------------------------------------------------------------------ under jax.jit
def test_shape_errors_are_raised_while_tracing(raises):
    masked_softmax = jax.jit(d2l.masked_softmax)
    raises(ValueError, lambda: masked_softmax(X, jnp.array([1, 2, 3])), LENS_SHAPES, "got shape (3,)")
    raises(ValueError, lambda: masked_softmax(X[0], jnp.array([1, 2])), "X must have shape", "got shape (3, 4)")
    raises(TypeError, lambda: masked_softmax(X, jnp.array([True, False])), "valid_lens must hold integer lengths")
    raises(TypeError, lambda: masked_softmax(X.astype(jnp.int32), None), "X must hold floating-point scores")


def test_lengths_fixed_at_trace_time_are_checked_while_tracing(raises):
    raises(ValueError, lambda: jax.jit(lambda x: d2l.masked_softmax(x, [1, -1]))(X), "valid_lens must not be negative")


def test_traced_negative_lengths_cannot_be_checked_and_mask_every_key():
    """The documented limit: a traced length has no value at trace time; a negative one acts as 0."""
    weights = jax.jit(d2l.masked_softmax)(X, jnp.array([-1, 2]))
    assert (weights[0] == 0).all() and (weights[1, :, :2] > 0).all()


# ------------------------------------------------------------------ attention layers
def _qkv(q=(2, 3, 4), k=(2, 5, 4), v=(2, 5, 6)):
    rng = np.random.default_rng(1)
    return tuple(jnp.asarray(rng.uniform(size=shape), dtype=jnp.float32) for shape in (q, k, v))


def _init(layer, *args):
    return layer.init(jax.random.key(0), *args)


LAYERS = [lambda: d2l.DotProductAttention(0.0), lambda: d2l.AdditiveAttention(8, 0.0)]


def test_attention_inputs_not_arrays(raises):
    q, k, v = _qkv()
    raises(
        TypeError,
        lambda: _init(d2l.DotProductAttention(0.0), q.tolist(), k, v),
        "queries must be a jax.Array or a NumPy array",
        "got list",
    )
    raises(
        TypeError, lambda: _init(d2l.AdditiveAttention(8, 0.0), q, k, 1.0), "values must be a jax.Array", "got float"
    )


@pytest.mark.parametrize("layer", LAYERS, ids=["dot", "additive"])
def test_attention_errors_under_jit(raises, layer):
    attention = layer()
    q, k, v = _qkv()
    params = _init(attention, q, k, v)
    apply = jax.jit(attention.apply)
    raises(ValueError, lambda: apply(params, q, k, v[:, :4]), "keys and values must have the same number")
    raises(ValueError, lambda: apply(params, q, k, v, jnp.array([1, 2, 3])), "valid_lens must have shape (2,)")


# ------------------------------------------------------------------ check_shape


def test_check_shape_raises_while_tracing(raises):
    raises(
        ValueError,
        lambda: jax.jit(lambda x: d2l.check_shape(x, (3, 2)))(jnp.zeros((2, 3))),
        "expected a tensor of shape (3, 2), got shape (2, 3)",
    )


# check_shape under ``python -O`` (an assert would vanish there; it is an if): see test_d2l_compat.py,
# whose D2L-style script runs with -O.


# ------------------------------------------------------------------ mask_from_valid_lens
@pytest.mark.parametrize(
    "valid_lens, error, message",
    [
        (
            jnp.array([[1, 2, 3]]),
            ValueError,
            "valid_lens must have shape (batch size,) or (batch size, 2), got shape (1, 3)",
        ),
        (jnp.zeros((1, 2, 3), dtype=jnp.int32), ValueError, "got shape (1, 2, 3)"),
        (jnp.array([-1, 2]), ValueError, "valid_lens must not be negative"),
        (np.array([1.5, 2.0]), ValueError, "valid_lens must hold whole numbers"),
        (jnp.array([True, False]), TypeError, "valid_lens must hold integer lengths, got dtype bool"),
    ],
    ids=["2-D", "3-D", "negative", "fractional", "bool"],
)
def test_mask_from_valid_lens_errors(raises, valid_lens, error, message):
    raises(error, lambda: d2l.mask_from_valid_lens(valid_lens, num_queries=2, num_keys=4), message)
