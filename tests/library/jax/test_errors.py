"""Clear errors (JAX): a ValueError or TypeError whose message names the argument, with the
expected and the received shape (or dtype, or value); shape errors also under ``jax.jit``,
where they are raised while tracing."""

from __future__ import annotations

import jax
import numpy as np
import pytest
from jax import numpy as jnp

from d2l_lib import jax as d2l


def raises(error, fn, *fragments):
    """Call ``fn``; it must raise exactly ``error`` with every fragment in its message."""
    with pytest.raises(error) as info:
        fn()
    assert type(info.value) is error
    message = str(info.value)
    for fragment in fragments:
        assert fragment in message, f"{fragment!r} not in {message!r}"
    return message


X = jnp.asarray(np.random.default_rng(0).uniform(size=(2, 3, 4)), dtype=jnp.float32)  # (batch, queries, keys)
LENS_SHAPES = "valid_lens must have shape (2,) or (2, 3) for X of shape (2, 3, 4)"


# ------------------------------------------------------------------ masked_softmax: scores
@pytest.mark.parametrize("shape", [(3, 4), (1, 2, 3, 4), (4,)])
def test_scores_not_3d(shape):
    raises(
        ValueError,
        lambda: d2l.masked_softmax(jnp.ones(shape), jnp.array([1, 2])),
        "X must have shape (batch size, no. of queries, no. of keys)",
        f"got shape {shape}",
    )


@pytest.mark.parametrize("shape", [(3, 4), (1, 2, 3, 4)])
def test_scores_not_3d_without_lengths(shape):
    raises(
        ValueError,
        lambda: d2l.masked_softmax(jnp.ones(shape), None),
        "X must have shape (batch size, no. of queries, no. of keys)",
        f"got shape {shape}",
    )


@pytest.mark.parametrize("lens", [[1, 2], None], ids=["lengths", "none"])
@pytest.mark.parametrize("dtype", [jnp.int32, jnp.bool_, jnp.uint8, np.int64], ids=str)
def test_scores_not_floating_point(dtype, lens):
    scores = np.ones((2, 3, 4), dtype=dtype) if dtype is np.int64 else jnp.ones((2, 3, 4), dtype=dtype)
    raises(
        TypeError,
        lambda: d2l.masked_softmax(scores, lens),
        "X must hold floating-point scores",
        f"got dtype {np.dtype(dtype)}",
    )


def test_scores_not_an_array():
    raises(
        TypeError,
        lambda: d2l.masked_softmax([[[0.5, 0.5]]], jnp.array([1])),
        "X must be a jax.Array or a NumPy array",
        "got list",
    )


# ------------------------------------------------------------------ masked_softmax: valid_lens
@pytest.mark.parametrize("shape", [(), (2, 3, 1), (1, 2, 3)], ids=["0-D", "3-D", "3-D-b"])
def test_lengths_of_wrong_rank(shape):
    raises(
        ValueError, lambda: d2l.masked_softmax(X, jnp.ones(shape, dtype=jnp.int32)), LENS_SHAPES, f"got shape {shape}"
    )


@pytest.mark.parametrize("shape", [(3,), (1,), (3, 3)])
def test_lengths_of_wrong_batch_size(shape):
    raises(
        ValueError, lambda: d2l.masked_softmax(X, jnp.ones(shape, dtype=jnp.int32)), LENS_SHAPES, f"got shape {shape}"
    )


@pytest.mark.parametrize("shape", [(2, 4), (2, 1), (2, 2)])
def test_lengths_of_wrong_per_query_shape(shape):
    raises(ValueError, lambda: d2l.masked_softmax(X, np.ones(shape, dtype=np.int64)), LENS_SHAPES, f"got shape {shape}")


@pytest.mark.parametrize("as_array", [np.array, jnp.array], ids=["numpy", "jax"])
@pytest.mark.parametrize("lens", [[1, -1], [[0, 1, 2], [3, -2, 1]], [-1.0, 2.0]])
def test_negative_lengths(lens, as_array):
    raises(ValueError, lambda: d2l.masked_softmax(X, as_array(lens)), "valid_lens must not be negative")


@pytest.mark.parametrize("as_array", [np.array, jnp.array], ids=["numpy", "jax"])
@pytest.mark.parametrize("lens", [[1.5, 2.0], [[0.0, 1.0, 2.25], [1.0, 1.0, 1.0]], [float("nan"), 1.0]])
def test_fractional_lengths(lens, as_array):
    raises(ValueError, lambda: d2l.masked_softmax(X, as_array(lens)), "valid_lens must hold whole numbers")


@pytest.mark.parametrize(
    "lens",
    [jnp.array([True, False]), jnp.array([1 + 0j, 2 + 0j]), np.array(["1", "2"])],
    ids=["bool", "complex", "str"],
)
def test_lengths_of_a_non_integer_dtype(lens):
    raises(
        TypeError,
        lambda: d2l.masked_softmax(X, lens),
        "valid_lens must hold integer lengths",
        f"got dtype {lens.dtype}",
    )


# ------------------------------------------------------------------ under jax.jit
def test_shape_errors_are_raised_while_tracing():
    masked_softmax = jax.jit(d2l.masked_softmax)
    raises(ValueError, lambda: masked_softmax(X, jnp.array([1, 2, 3])), LENS_SHAPES, "got shape (3,)")
    raises(ValueError, lambda: masked_softmax(X[0], jnp.array([1, 2])), "X must have shape", "got shape (3, 4)")
    raises(TypeError, lambda: masked_softmax(X, jnp.array([True, False])), "valid_lens must hold integer lengths")
    raises(TypeError, lambda: masked_softmax(X.astype(jnp.int32), None), "X must hold floating-point scores")


def test_lengths_fixed_at_trace_time_are_checked_while_tracing():
    raises(ValueError, lambda: jax.jit(lambda x: d2l.masked_softmax(x, [1, -1]))(X), "valid_lens must not be negative")


def test_traced_negative_lengths_cannot_be_checked_and_mask_every_key():
    """The documented limit: a traced length has no value at trace time; a negative one acts as 0."""
    weights = jax.jit(d2l.masked_softmax)(X, jnp.array([-1, 2]))
    assert (weights[0] == 0).all() and (weights[1, :, :2] > 0).all()


# ------------------------------------------------------------------ attention layers
def _qkv(q=(2, 3, 4), k=(2, 5, 4), v=(2, 5, 6)):
    rng = np.random.default_rng(1)
    return tuple(jnp.asarray(rng.uniform(size=shape), dtype=jnp.float32) for shape in (q, k, v))


def _shapes(q, k, v):
    return f"queries {q}, keys {k}, values {v}"


def _init(layer, *args):
    return layer.init(jax.random.key(0), *args)


def test_dot_product_query_key_length_mismatch():
    q, k, v = (2, 3, 4), (2, 5, 3), (2, 5, 6)
    raises(
        ValueError,
        lambda: _init(d2l.DotProductAttention(0.0), *_qkv(q, k, v)),
        "queries and keys must have the same length d",
        _shapes(q, k, v),
    )


LAYERS = [lambda: d2l.DotProductAttention(0.0), lambda: d2l.AdditiveAttention(8, 0.0)]


@pytest.mark.parametrize("layer", LAYERS, ids=["dot", "additive"])
def test_key_value_count_mismatch(layer):
    q, k, v = (2, 3, 4), (2, 5, 4), (2, 6, 6)
    raises(
        ValueError,
        lambda: _init(layer(), *_qkv(q, k, v)),
        "keys and values must have the same number of key-value pairs",
        _shapes(q, k, v),
    )


@pytest.mark.parametrize("layer", LAYERS, ids=["dot", "additive"])
@pytest.mark.parametrize(
    "q, k, v", [((3, 3, 4), (2, 5, 4), (2, 5, 6)), ((2, 3, 4), (2, 5, 4), (1, 5, 6))], ids=["queries", "values"]
)
def test_batch_size_mismatch(layer, q, k, v):
    raises(
        ValueError,
        lambda: _init(layer(), *_qkv(q, k, v)),
        "queries, keys and values must have the same batch size",
        _shapes(q, k, v),
    )


@pytest.mark.parametrize("which", ["queries", "keys", "values"])
def test_attention_inputs_not_3d(which):
    shapes = {"q": (2, 3, 4), "k": (2, 5, 4), "v": (2, 5, 6)}
    shapes[which[0]] = (5, 4)
    raises(
        ValueError,
        lambda: _init(d2l.DotProductAttention(0.0), *_qkv(**shapes)),
        f"{which} must have shape (batch size, no. of {which}, length)",
        "got shape (5, 4)",
    )


def test_attention_inputs_not_arrays():
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
def test_attention_with_lengths_of_the_wrong_shape(layer):
    raises(
        ValueError,
        lambda: _init(layer(), *_qkv(), jnp.array([1, 2, 3])),
        "valid_lens must have shape (2,) or (2, 3)",
        "got shape (3,)",
    )


@pytest.mark.parametrize("layer", LAYERS, ids=["dot", "additive"])
def test_attention_errors_under_jit(layer):
    attention = layer()
    q, k, v = _qkv()
    params = _init(attention, q, k, v)
    apply = jax.jit(attention.apply)
    raises(ValueError, lambda: apply(params, q, k, v[:, :4]), "keys and values must have the same number")
    raises(ValueError, lambda: apply(params, q, k, v, jnp.array([1, 2, 3])), "valid_lens must have shape (2,)")


def test_additive_attention_accepts_different_query_and_key_lengths():
    (out, _), _ = d2l.AdditiveAttention(8, 0.0).init_with_output(
        jax.random.key(0), *_qkv(q=(2, 3, 20), k=(2, 5, 2)), jnp.array([2, 5])
    )
    assert out.shape == (2, 3, 6)


# ------------------------------------------------------------------ check_shape
@pytest.mark.parametrize("shape", [(3, 2), [2, 3, 1]], ids=["tuple", "list"])
def test_check_shape_mismatch_is_a_value_error_naming_both_shapes(shape):
    raises(
        ValueError,
        lambda: d2l.check_shape(jnp.zeros((2, 3)), shape),
        f"expected a tensor of shape {tuple(shape)}",
        "got shape (2, 3)",
    )


@pytest.mark.parametrize("shape", [6, "2,3", None])
def test_check_shape_refuses_a_shape_that_is_not_a_sequence(shape):
    raises(TypeError, lambda: d2l.check_shape(jnp.zeros((2, 3)), shape), "shape must be a tuple or a list")


def test_check_shape_raises_while_tracing():
    raises(
        ValueError,
        lambda: jax.jit(lambda x: d2l.check_shape(x, (3, 2)))(jnp.zeros((2, 3))),
        "expected a tensor of shape (3, 2), got shape (2, 3)",
    )


# check_shape under ``python -O`` (an assert would vanish there; it is an if): see test_d2l_compat.py,
# whose D2L-style script runs with -O.


# ------------------------------------------------------------------ show_heatmaps
@pytest.mark.parametrize("shape", [(), (5,), (1, 1, 1, 2, 2)], ids=["0-D", "1-D", "5-D"])
def test_show_heatmaps_refuses_other_ranks(shape):
    raises(
        ValueError,
        lambda: d2l.show_heatmaps(jnp.zeros(shape), xlabel="Keys", ylabel="Queries"),
        "matrices must have shape (queries, keys), (panels, queries, keys) or (grid rows, grid columns, queries, keys)",
        f"got shape {shape}",
    )


def test_show_heatmaps_refuses_titles_that_do_not_match_the_columns():
    raises(
        ValueError,
        lambda: d2l.show_heatmaps(jnp.zeros((1, 2, 3, 3)), "Keys", "Queries", titles=["only one"]),
        "titles must have one entry per column of panels (2)",
        "got 1",
    )


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
def test_mask_from_valid_lens_errors(valid_lens, error, message):
    raises(error, lambda: d2l.mask_from_valid_lens(valid_lens, num_queries=2, num_keys=4), message)
