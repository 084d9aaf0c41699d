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
Before JAX 0.4.32, XLA's CPU backend compiles the library's softmax into other roundings
still: those releases, which ``pyproject.toml`` allows, get a wider bound of their own
(``OLD_XLA_CPU``).
"""

from __future__ import annotations

import numpy as np
import pytest
from packaging.version import Version

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
OLD_XLA_CPU = {"jax": "0.4.32"}
"""The first release of JAX whose CPU backend compiles the library's softmax as the lesson
runs it, operation by operation.

JAX 0.4.30 and 0.4.31 (``jax>=0.4.30`` in ``pyproject.toml``) compile ``jax.nn.softmax``
inside the library's ``jax.jit`` with XLA:CPU's older runtime, into a kernel whose weights
round apart from the lesson's. Measured on 0.4.30 (0.4.31 the same): 2 to 4 units in the
last place on the small inputs of this module, up to 6 among the 76,800 float32 weights of
the large-scores test (1 unit in float16 and bfloat16). That kernel also gives 0 for some
weights below ``FLUSHED_BELOW`` that the lesson keeps: 18 float32 and 24 bfloat16 weights of
1.2e-38 to 2.33e-38 there, all normal numbers. From 0.4.32 on, whose CPU backend runs XLA's
new runtime by default, these weights are the lesson's to within ``WEIGHT_ULPS``, and JAX
0.4.33 with ``XLA_FLAGS=--xla_cpu_use_thunk_runtime=false`` (the older runtime) rounds
4 units apart once more. Only those releases, on the CPU, get ``OLD_XLA_CPU_WEIGHT_ULPS`` and
``FLUSHED_BELOW``."""
OLD_XLA_CPU_WEIGHT_ULPS = 6
"""Units in the last place of the weights' own dtype, before ``OLD_XLA_CPU`` on the CPU."""
FLUSHED_BELOW = 2.0**-125
"""Twice the smallest normal number of float32 and bfloat16 (2**-126, 1.18e-38): a weight
of the lesson below it may be 0 in the library before ``OLD_XLA_CPU`` on the CPU, an
absolute difference of less than 2.4e-38."""
BFLOAT16_ULP_IN_FLOAT32 = 2**16
"""A bfloat16 is the upper half of a float32: one of its units in the last place is 2**16 of
float32's, subnormals included (NumPy compares bfloat16 only as float32)."""


def old_xla_cpu(lib) -> bool:
    """Whether ``lib`` computes on the CPU with a release older than ``OLD_XLA_CPU`` names."""
    release = OLD_XLA_CPU.get(lib.name)
    return release is not None and lib.backend == "cpu" and Version(lib.version) < Version(release)


def weight_ulps(lib) -> int:
    """``WEIGHT_ULPS`` of ``lib``, ``GPU_WEIGHT_ULPS`` when its arrays live on a GPU, or
    ``OLD_XLA_CPU_WEIGHT_ULPS`` for a release before ``OLD_XLA_CPU`` on the CPU."""
    if old_xla_cpu(lib):
        return OLD_XLA_CPU_WEIGHT_ULPS
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


def assert_max_ulp(actual, expected, maxulp):
    """``np.testing.assert_array_max_ulp`` in units of the arrays' own dtype, bfloat16 included."""
    actual, expected = np.asarray(actual), np.asarray(expected)
    if actual.dtype.name == "bfloat16":
        actual, expected = actual.astype(np.float32), expected.astype(np.float32)
        maxulp *= BFLOAT16_ULP_IN_FLOAT32
    np.testing.assert_array_max_ulp(actual, expected, maxulp=maxulp)


def flushed_as_old_xla_cpu(actual, expected):
    """``actual`` with 0 wherever ``expected`` is 0 and ``actual`` is below ``FLUSHED_BELOW``
    (``OLD_XLA_CPU``)."""
    actual, expected = np.array(actual), np.asarray(expected)
    actual[(expected == 0) & (np.abs(actual.astype(np.float32)) < FLUSHED_BELOW)] = 0
    return actual


def same_weights(lib, actual, expected):
    """Equal weights (to ``weight_ulps`` units in the last place), with zeros in the same places.

    ``actual`` are the lesson's, ``expected`` the library's: before ``OLD_XLA_CPU`` on the
    CPU, a weight of the lesson below ``FLUSHED_BELOW`` may be 0 in the library."""
    assert lib.dtype_name(actual) == lib.dtype_name(expected)
    if old_xla_cpu(lib):
        actual = flushed_as_old_xla_cpu(actual, expected)
    if weight_ulps(lib):
        assert_max_ulp(actual, expected, weight_ulps(lib))
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
            if old_xla_cpu(lib):  # in units of the dtype itself, as OLD_XLA_CPU measures them
                same_weights(lib, mine, theirs)
            elif weight_ulps(lib):  # as float32: in float16 and bfloat16 that asks for the same bits
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
