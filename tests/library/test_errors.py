"""Clear errors in every framework (issue 5, item 2): a ValueError or TypeError whose message
names the argument, with the expected and the received shape (or dtype, or value).

What only one framework has (inputs that are not arrays, errors under ``jax.jit`` and
``tf.function``, Keras's summary around a layer's errors, ``python -O``) is in
``<framework>/test_errors.py``.
"""

from __future__ import annotations

import numpy as np
import pytest

LENS_SHAPES = "valid_lens must have shape (2,) or (2, 3) for X of shape (2, 3, 4)"
LAYERS = ["dot", "additive"]


def scores(lib):
    """Scores of shape (batch, queries, keys) = (2, 3, 4)."""
    return lib.array(np.random.default_rng(0).uniform(size=(2, 3, 4)), "float32")


def qkv(lib, q=(2, 3, 4), k=(2, 5, 4), v=(2, 5, 6)):
    """Queries, keys and values of the given shapes."""
    rng = np.random.default_rng(1)
    return tuple(lib.array(rng.uniform(size=shape), "float32") for shape in (q, k, v))


def shapes(q, k, v):
    """The shapes as the layers' messages name them."""
    return f"queries {q}, keys {k}, values {v}"


# ------------------------------------------------------------------ masked_softmax: scores
@pytest.mark.parametrize("shape", [(3, 4), (1, 2, 3, 4), (4,)])
@pytest.mark.parametrize("lens", [[1, 2], None], ids=["lengths", "no-lengths"])
def test_scores_not_3d(lib, raises, shape, lens):
    raises(
        ValueError,
        lambda: lib.d2l.masked_softmax(lib.array(np.ones(shape), "float32"), None if lens is None else lib.array(lens)),
        "X must have shape (batch size, no. of queries, no. of keys)",
        f"got shape {shape}",
    )


@pytest.mark.parametrize("dtype", ["int64", "int32", "bool", "uint8"])
@pytest.mark.parametrize("lens", [[1, 2], None], ids=["lengths", "no-lengths"])
def test_scores_not_floating_point(lib, raises, dtype, lens):
    raises(
        TypeError,
        lambda: lib.d2l.masked_softmax(lib.array(np.ones((2, 3, 4)), dtype), None if lens is None else lib.array(lens)),
        "X must hold floating-point scores",
        f"got dtype {lib.dtype_repr(dtype)}",
    )


def test_scores_not_an_array(lib, raises):
    raises(
        TypeError,
        lambda: lib.d2l.masked_softmax([[[0.5, 0.5]]], lib.array([1])),
        f"X must be a {lib.array_type}",
        "got list",
    )


# ------------------------------------------------------------------ masked_softmax: valid_lens
@pytest.mark.parametrize("dtype", ["int32", "int64"])
@pytest.mark.parametrize(
    "shape",
    [(), (2, 3, 1), (1, 2, 3), (3,), (1,), (3, 3), (2, 4), (2, 1), (2, 2)],
    ids=["0-D", "3-D", "3-D-b", "batch-3", "batch-1", "batch-3-2D", "4-queries", "1-query", "2-queries"],
)
def test_lengths_of_wrong_rank_batch_size_or_number_of_queries(lib, raises, shape, dtype):
    raises(
        ValueError,
        lambda: lib.d2l.masked_softmax(scores(lib), lib.array(np.ones(shape), dtype)),
        LENS_SHAPES,
        f"got shape {shape}",
    )


@pytest.mark.parametrize("as_array", ["framework", "numpy"])
@pytest.mark.parametrize(
    "lens", [[1, -1], [[0, 1, 2], [3, -2, 1]], [-1.0, 2.0], [-float("inf"), 1.0]], ids=["1-D", "2-D", "float", "-inf"]
)
def test_negative_lengths(lib, raises, lens, as_array):
    valid_lens = lib.array(lens) if as_array == "framework" else np.array(lens)
    raises(ValueError, lambda: lib.d2l.masked_softmax(scores(lib), valid_lens), "valid_lens must not be negative")


@pytest.mark.parametrize("as_array", ["framework", "numpy"])
@pytest.mark.parametrize("lens", [[1.5, 2.0], [[0.0, 1.0, 2.25], [1.0, 1.0, 1.0]], [float("nan"), 1.0]])
def test_fractional_lengths(lib, raises, lens, as_array):
    valid_lens = lib.array(lens) if as_array == "framework" else np.array(lens)
    raises(ValueError, lambda: lib.d2l.masked_softmax(scores(lib), valid_lens), "valid_lens must hold whole numbers")


@pytest.mark.parametrize(
    "lens, dtype", [([True, False], "bool"), ([1 + 0j, 2 + 0j], "complex64")], ids=["bool", "complex"]
)
def test_lengths_of_a_non_integer_dtype(lib, raises, lens, dtype):
    raises(
        TypeError,
        lambda: lib.d2l.masked_softmax(scores(lib), lib.array(lens, dtype)),
        "valid_lens must hold integer lengths",
        f"got dtype {lib.dtype_repr(dtype)}",
    )


# ------------------------------------------------------------------ attention layers
def test_dot_product_query_key_length_mismatch(lib, raises):
    q, k, v = (2, 3, 4), (2, 5, 3), (2, 5, 6)
    raises(
        ValueError,
        lambda: lib.layer("dot", 0.0)(*qkv(lib, q, k, v)),
        "queries and keys must have the same length d",
        shapes(q, k, v),
    )


@pytest.mark.parametrize("kind", LAYERS)
def test_key_value_count_mismatch(lib, raises, kind):
    q, k, v = (2, 3, 4), (2, 5, 4), (2, 6, 6)
    raises(
        ValueError,
        lambda: lib.layer(kind, 0.0)(*qkv(lib, q, k, v)),
        "keys and values must have the same number of key-value pairs",
        shapes(q, k, v),
    )


@pytest.mark.parametrize("kind", LAYERS)
@pytest.mark.parametrize(
    "q, k, v", [((3, 3, 4), (2, 5, 4), (2, 5, 6)), ((2, 3, 4), (2, 5, 4), (1, 5, 6))], ids=["queries", "values"]
)
def test_batch_size_mismatch(lib, raises, kind, q, k, v):
    raises(
        ValueError,
        lambda: lib.layer(kind, 0.0)(*qkv(lib, q, k, v)),
        "queries, keys and values must have the same batch size",
        shapes(q, k, v),
    )


@pytest.mark.parametrize("which", ["queries", "keys", "values"])
def test_attention_inputs_not_3d(lib, raises, which):
    sizes = {"q": (2, 3, 4), "k": (2, 5, 4), "v": (2, 5, 6)}
    sizes[which[0]] = (5, 4)
    raises(
        ValueError,
        lambda: lib.layer("dot", 0.0)(*qkv(lib, **sizes)),
        f"{which} must have shape (batch size, no. of {which}, length)",
        "got shape (5, 4)",
    )


@pytest.mark.parametrize("kind", LAYERS)
def test_attention_with_lengths_of_the_wrong_shape(lib, raises, kind):
    raises(
        ValueError,
        lambda: lib.layer(kind, 0.0)(*qkv(lib), lib.array([1, 2, 3])),
        "valid_lens must have shape (2,) or (2, 3)",
        "got shape (3,)",
    )


def test_additive_attention_accepts_different_query_and_key_lengths(lib):
    out, _ = lib.layer("additive", 0.0)(*qkv(lib, q=(2, 3, 20), k=(2, 5, 2)), lib.array([2, 5]))
    assert tuple(out.shape) == (2, 3, 6)


# ------------------------------------------------------------------ check_shape
@pytest.mark.parametrize("shape", [(3, 2), [2, 3, 1]], ids=["tuple", "list"])
def test_check_shape_mismatch_is_a_value_error_naming_both_shapes(lib, raises, shape):
    raises(
        ValueError,
        lambda: lib.d2l.check_shape(lib.array(np.zeros((2, 3)), "float32"), shape),
        f"expected a tensor of shape {tuple(shape)}",
        "got shape (2, 3)",
    )


@pytest.mark.parametrize("shape", [6, "2,3", None])
def test_check_shape_refuses_a_shape_that_is_not_a_sequence(lib, raises, shape):
    raises(
        TypeError,
        lambda: lib.d2l.check_shape(lib.array(np.zeros((2, 3)), "float32"), shape),
        f"shape must be a {lib.shape_types}",
    )


# ------------------------------------------------------------------ show_heatmaps
@pytest.mark.parametrize("shape", [(), (5,), (1, 1, 1, 2, 2)], ids=["0-D", "1-D", "5-D"])
def test_show_heatmaps_refuses_other_ranks(lib, raises, shape):
    raises(
        ValueError,
        lambda: lib.d2l.show_heatmaps(lib.array(np.zeros(shape), "float32"), xlabel="Keys", ylabel="Queries"),
        "matrices must have shape (queries, keys), (panels, queries, keys) or (grid rows, grid columns, queries, keys)",
        f"got shape {shape}",
    )


def test_show_heatmaps_refuses_titles_that_do_not_match_the_columns(lib, raises):
    raises(
        ValueError,
        lambda: lib.d2l.show_heatmaps(lib.array(np.zeros((1, 2, 3, 3)), "float32"), "Keys", "Queries", titles=["one"]),
        "titles must have one entry per column of panels (2)",
        "got 1",
    )
