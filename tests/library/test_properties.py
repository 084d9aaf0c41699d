"""Property-based tests (hypothesis) of ``masked_softmax`` in every framework, over random
shapes, lengths and dtypes (issue 5, item 3): the weights are finite and non-negative, sum to
1 within each valid length (to a tolerance that depends on the dtype), are exactly 0 beyond
it, and a length of 0 gives an all-zero row; they agree with a naive float64 reference, the
scores are left as they were, and the gradient is finite and 0 past the lengths.

Each framework's built-in attention, its dropout, ``jax.jit`` and ``tf.function`` are in
``<framework>/test_properties.py``.
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

# Modest and reproducible: CI replays the same examples (derandomize) and writes no database.
FAST = settings(max_examples=40, deadline=None, derandomize=True, database=None)

DTYPES = ["float16", "bfloat16", "float32", "float64"]


@st.composite
def scores_and_lengths(draw, dtypes=DTYPES, max_size=6):
    """Scores (batch, queries, keys) as float64 NumPy, the dtype to test them in, a scale, and
    lengths that are None, 1-D or 2-D, from 0 to past the number of keys, with the form the
    library gets them in: an int64, int32 or float32 array of the framework, or a list."""
    shape = (draw(st.integers(1, 4)), draw(st.integers(1, max_size)), draw(st.integers(1, max_size + 2)))
    dtype = draw(st.sampled_from(dtypes))
    scale = draw(st.sampled_from([0.0, 1.0, 10.0, 1000.0]))
    X = np.random.default_rng(draw(st.integers(0, 2**31 - 1))).standard_normal(shape) * scale
    kind = draw(st.sampled_from(["none", "1-D", "2-D"]))
    if kind == "none":
        return X, dtype, None, None
    lens_shape = shape[:1] if kind == "1-D" else shape[:2]
    count = int(np.prod(lens_shape))
    lens = np.array(draw(st.lists(st.integers(0, shape[2] + 2), min_size=count, max_size=count))).reshape(lens_shape)
    return X, dtype, lens, draw(st.sampled_from(["int64", "int32", "float32", "list"]))


def lengths(lib, lens, form):
    """The lengths in ``form``: None, a list, or an array of the framework in that dtype."""
    if lens is None:
        return None
    return lens.tolist() if form == "list" else lib.array(lens, form)


def per_query(lens, shape) -> np.ndarray:
    """The valid length of every query, (batch, queries)."""
    batch_size, num_queries, num_keys = shape
    if lens is None:
        return np.full((batch_size, num_queries), num_keys)
    return np.broadcast_to(lens.reshape(batch_size, -1), (batch_size, num_queries))


@FAST
@given(case=scores_and_lengths())
def test_weights_are_a_masked_distribution_equal_to_the_reference(lib, masked_distribution, case):
    X, dtype, lens, form = case
    with lib.precision(dtype):
        scores = lib.array(X, dtype)
        before = lib.numpy(scores)
        weights = lib.d2l.masked_softmax(scores, lengths(lib, lens, form))
        assert tuple(weights.shape) == X.shape and lib.dtype_name(weights) == dtype
        weights = lib.numpy(weights)
        np.testing.assert_array_equal(lib.numpy(scores), before)  # the scores are left alone
    masked_distribution(weights, before, lens, dtype)


@FAST
@given(case=scores_and_lengths(dtypes=["float64"]))
def test_gradient_vanishes_past_the_length(lib, case):
    X, dtype, lens, form = case
    with lib.precision(dtype):
        upstream = lib.randn(X.shape, seed=0, dtype=dtype)
        (grad,) = lib.grad(
            lambda x: lib.total(lib.d2l.masked_softmax(x, lengths(lib, lens, form)) * upstream), lib.array(X, dtype)
        )
    padding = np.arange(X.shape[-1]) >= per_query(lens, X.shape)[..., None]
    assert np.isfinite(grad).all() and (grad[padding] == 0).all()
