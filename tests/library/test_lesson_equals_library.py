"""The lesson's code and the library's give the same results, in every framework.

The chapter page teaches with short ``masked_softmax``, ``DotProductAttention``,
``AdditiveAttention`` and exercise solutions; ``d2l_lib`` saves validated, faster versions
from the engineering page. On random and edge inputs (no, 1-D and 2-D lengths, a length of
0, full and overlong lengths, float32 and float16) the weights are equal, their zeros in
the same places, and the outputs equal to within float rounding (the library scales the
queries rather than the scores, so the products round differently, and PyTorch's library
layer sums with a fused kernel, in another order).

JAX compiles the library's masking with ``jax.jit``, where XLA may fuse the exponentials and
round them differently from the lesson's operation-by-operation run: there the weights are
compared to within one unit in the last place (``WEIGHT_ULPS``), their zeros exactly.
"""

from __future__ import annotations

import numpy as np
import pytest

LENGTHS = {
    "none": None,
    "1-D": [2, 3],
    "1-D, 0 and full": [0, 5],
    "2-D": [[1, 3, 5], [2, 4, 0]],
    "2-D, overlong": [[9, 1, 5], [5, 0, 7]],
}
DTYPES = ["float32", "float16"]
WEIGHT_ULPS = {"torch": 0, "jax": 1, "tensorflow": 0}
"""How many units in the last place the lesson's weights may be from the library's."""
GPU_WEIGHT_ULPS = {"jax": 2}
"""The same on a GPU, where it differs: XLA's GPU exponentials, fused differently into the
lesson's and the library's computations, round up to 2 units apart (H100, jax 0.11.2)."""


def weight_ulps(lib) -> int:
    """``WEIGHT_ULPS`` of ``lib``, or ``GPU_WEIGHT_ULPS`` when its arrays live on a GPU."""
    if getattr(lib, "backend", "cpu") == "gpu":
        return GPU_WEIGHT_ULPS.get(lib.name, WEIGHT_ULPS[lib.name])
    return WEIGHT_ULPS[lib.name]


LARGE_DTYPES = {
    "torch": ("float64", "float32", "bfloat16", "float16"),
    "jax": ("float32", "bfloat16", "float16"),  # float64: XLA's fused exponentials round 2 ulps apart
    "tensorflow": ("float64", "float32", "bfloat16", "float16"),
}


def lengths(lib, case):
    """The lengths of ``case`` as an array of the framework (None for no lengths)."""
    return None if LENGTHS[case] is None else lib.array(LENGTHS[case])


def inputs(lib, dtype, seed=0, d=4, v=3, query_size=None):
    """Queries (2, 3, query_size or d), keys (2, 5, d) and values (2, 5, v) in ``dtype``."""
    shapes = ((2, 3, query_size or d), (2, 5, d), (2, 5, v))
    return tuple(lib.randn(shape, seed=seed + i, dtype=dtype) for i, shape in enumerate(shapes))


def close(lib, actual, expected):
    """Same dtype, and equal to within float rounding: 1e-5 relative in float32; in float16
    2e-3 relative, or 1e-3 absolute (two units of float16's rounding at the inputs' scale of
    1). A sum of products rounded in float16 at every step, as the lesson's layer computes
    it, is off by that much from the same sum accumulated in float32 and rounded once, as
    PyTorch's fused attention kernel computes the library's output."""
    assert lib.dtype_name(actual) == lib.dtype_name(expected)
    half = lib.dtype_name(actual) == "float16"
    np.testing.assert_allclose(
        lib.numpy(actual), lib.numpy(expected), rtol=2e-3 if half else 1e-5, atol=1e-3 if half else 1e-6
    )


def same_after_copy(lib, mine, theirs, queries, keys, values, valid_lens):
    """Size ``mine`` with a first call, give it the parameters of ``theirs``; then both give the
    same output (to within rounding) and the same weights."""
    expected, expected_weights = theirs(queries, keys, values, valid_lens)
    mine(queries, keys, values, valid_lens)
    mine.copy_from(theirs)
    output, weights = mine(queries, keys, values, valid_lens)
    close(lib, output, expected)
    same_weights(lib, weights, expected_weights)


def same_weights(lib, actual, expected):
    """Equal weights (to ``WEIGHT_ULPS`` units in the last place), with zeros in the same places."""
    assert lib.dtype_name(actual) == lib.dtype_name(expected)
    if weight_ulps(lib):
        np.testing.assert_array_max_ulp(np.asarray(actual), np.asarray(expected), maxulp=weight_ulps(lib))
    else:
        close(lib, actual, expected)
    assert np.array_equal(lib.numpy(actual) == 0, lib.numpy(expected) == 0), "zeros in other places"


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", LENGTHS)
def test_masked_softmax(lib, lesson, case, dtype):
    X = lib.randn((2, 3, 5), seed=1, dtype=dtype, scale=4.0)
    before = lib.numpy(X)
    weights = lesson["masked_softmax"](X, lengths(lib, case))
    np.testing.assert_array_equal(lib.numpy(X), before, err_msg="the lesson's masked_softmax modified its input")
    assert lib.dtype_name(weights) == dtype and not np.isnan(lib.numpy(weights)).any()
    expected = lib.d2l.masked_softmax(X, lengths(lib, case))
    if weight_ulps(lib):
        same_weights(lib, weights, expected)
    else:
        np.testing.assert_array_equal(lib.numpy(weights), lib.numpy(expected))


def test_masked_softmax_large_scores_of_every_dtype(lib, lesson):
    """Scores beyond float16's range of -1e6 and large tensors (the library's other path)."""
    for dtype in LARGE_DTYPES[lib.name]:
        with lib.precision(dtype):
            X = lib.randn((4, 64, 300), seed=2, dtype=dtype, scale=100.0)
            lens = lib.array([0, 1, 150, 300])
            mine, theirs = lesson["masked_softmax"](X, lens), lib.d2l.masked_softmax(X, lens)
            if weight_ulps(lib):
                same_weights(lib, mine.astype("float32"), theirs.astype("float32"))
            else:
                np.testing.assert_array_equal(lib.numpy(mine), lib.numpy(theirs), err_msg=dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", LENGTHS)
def test_dot_product_attention(lib, lesson, case, dtype):
    queries, keys, values = inputs(lib, dtype)
    mine, theirs = lib.lesson_layer(lesson, "dot", 0.5), lib.layer("dot", 0.5)
    output, weights = mine(queries, keys, values, lengths(lib, case))
    expected, expected_weights = theirs(queries, keys, values, lengths(lib, case))
    close(lib, output, expected)
    same_weights(lib, weights, expected_weights)


@pytest.mark.parametrize("case", LENGTHS)
def test_additive_attention(lib, lesson, case):
    queries, keys, values = inputs(lib, "float32", query_size=6)
    mine = lib.lesson_layer(lesson, "additive", 0.1, num_hiddens=8)
    theirs = lib.layer("additive", 0.1, num_hiddens=8)
    same_after_copy(lib, mine, theirs, queries, keys, values, lengths(lib, case))


@pytest.mark.parametrize("case", LENGTHS)
def test_exercise_solutions(lib, lesson, case):
    queries, keys, values = inputs(lib, "float32")
    mine, theirs = lib.lesson_layer(lesson, "distance", 0.0), lib.layer("distance", 0.0)
    output, weights = mine(queries, keys, values, lengths(lib, case))
    expected, expected_weights = theirs(queries, keys, values, lengths(lib, case))
    close(lib, output, expected)
    same_weights(lib, weights, expected_weights)

    queries, keys, values = inputs(lib, "float32", query_size=6)
    mine = lib.lesson_layer(lesson, "bilinear", 0.0, query_size=6, key_size=4)
    theirs = lib.layer("bilinear", 0.0, query_size=6, key_size=4)
    same_after_copy(lib, mine, theirs, queries, keys, values, lengths(lib, case))
