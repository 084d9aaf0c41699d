"""Property-based tests (hypothesis) over random shapes, lengths and dtypes (issue 5, item 3).

* masked_softmax: weights are finite and non-negative, sum to 1 within each valid length
  (to a tolerance that depends on the dtype), are exactly 0 beyond it, and a length of 0
  gives an all-zero row; they agree with a naive float64 reference.
* DotProductAttention in evaluation mode equals torch's scaled_dot_product_attention given
  the equivalent boolean mask (True = attend). For a row whose valid length is 0 no key may
  be attended: our output row is defined to be exactly zero, and torch returns zeros there
  too (since 2.5; older versions returned NaN), so "equal" means: our row is all zeros and
  equals torch's row with any NaN read as 0.
* Dropout acts in training mode only: evaluation is deterministic and equals no dropout;
  training is reproducible under a seed and is exactly dropout applied to the weights.
"""

from __future__ import annotations

import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from torch import nn

from d2l_lib import torch as d2l

# Modest and reproducible: CI replays the same examples (derandomize) and writes no database.
FAST = settings(max_examples=40, deadline=None, derandomize=True, database=None)

DTYPES = [torch.float16, torch.bfloat16, torch.float32, torch.float64]
SUM_TOLERANCE = {torch.float16: 5e-3, torch.bfloat16: 3e-2, torch.float32: 1e-5, torch.float64: 1e-12}
REFERENCE_TOLERANCE = {
    torch.float16: (2e-3, 1e-3),
    torch.bfloat16: (2e-2, 1e-2),
    torch.float32: (1e-5, 1e-6),
    torch.float64: (1e-12, 1e-14),
}


@st.composite
def scores_and_lengths(draw, dtypes=DTYPES, max_size=6):
    """Scores (batch, queries, keys) in a drawn dtype and scale, and lengths that are None,
    1-D or 2-D, from 0 to past the number of keys, as an integer or a float tensor."""
    batch_size = draw(st.integers(1, 4))
    num_queries = draw(st.integers(1, max_size))
    num_keys = draw(st.integers(1, max_size + 2))
    dtype = draw(st.sampled_from(dtypes))
    scale = draw(st.sampled_from([0.0, 1.0, 10.0, 1000.0]))
    seed = draw(st.integers(0, 2**31 - 1))
    X = (
        torch.randn(
            batch_size, num_queries, num_keys, dtype=torch.float64, generator=torch.Generator().manual_seed(seed)
        )
        * scale
    ).to(dtype)
    kind = draw(st.sampled_from(["none", "1-D", "2-D"]))
    if kind == "none":
        return X, None
    shape = (batch_size,) if kind == "1-D" else (batch_size, num_queries)
    lens = draw(
        st.lists(
            st.integers(0, num_keys + 2),
            min_size=shape[0] * (shape[1] if len(shape) == 2 else 1),
            max_size=shape[0] * (shape[1] if len(shape) == 2 else 1),
        )
    )
    lens_dtype = draw(st.sampled_from([torch.int64, torch.int32, torch.float32]))
    return X, torch.tensor(lens, dtype=lens_dtype).reshape(shape)


def _per_query(lens, shape):
    batch_size, num_queries, num_keys = shape
    if lens is None:
        return torch.full((batch_size, num_queries), num_keys)
    return lens.long().reshape(batch_size, -1).expand(batch_size, num_queries)


@FAST
@given(scores_and_lengths())
def test_weights_are_a_masked_distribution(case):
    X, lens = case
    X_before = X.clone()
    weights = d2l.masked_softmax(X, lens)
    assert weights.shape == X.shape and weights.dtype == X.dtype
    assert torch.equal(X, X_before)
    assert torch.isfinite(weights).all() and (weights >= 0).all()
    per_query = _per_query(lens, X.shape)
    padding = torch.arange(X.shape[-1]) >= per_query.unsqueeze(-1)
    assert (weights[padding] == 0).all()  # exactly 0 beyond the valid length
    sums = weights.double().sum(-1)
    has_keys = per_query > 0
    assert (sums[~has_keys] == 0).all()  # length 0: an all-zero row
    assert ((sums[has_keys] - 1).abs() <= SUM_TOLERANCE[X.dtype]).all()


@FAST
@given(scores_and_lengths())
def test_weights_match_the_naive_reference(reference_masked_softmax, case):
    X, lens = case
    rtol, atol = REFERENCE_TOLERANCE[X.dtype]
    torch.testing.assert_close(
        d2l.masked_softmax(X, lens).double(), reference_masked_softmax(X, lens), rtol=rtol, atol=atol
    )


@FAST
@given(scores_and_lengths(dtypes=[torch.float64]))
def test_gradient_vanishes_past_the_length(case):
    X, lens = case
    X.requires_grad_()
    upstream = torch.randn(X.shape, dtype=torch.float64, generator=torch.Generator().manual_seed(0))
    (d2l.masked_softmax(X, lens) * upstream).sum().backward()
    padding = torch.arange(X.shape[-1]) >= _per_query(lens, X.shape).unsqueeze(-1)
    assert torch.isfinite(X.grad).all() and (X.grad[padding] == 0).all()


@st.composite
def attention_inputs(draw):
    """Queries, keys, values in float32 or float64 and lengths that are None, 1-D or 2-D."""
    batch_size = draw(st.integers(1, 3))
    num_queries, num_pairs = draw(st.integers(1, 6)), draw(st.integers(1, 8))
    d, value_size = draw(st.integers(1, 8)), draw(st.integers(1, 5))
    dtype = draw(st.sampled_from([torch.float32, torch.float64]))
    gen = torch.Generator().manual_seed(draw(st.integers(0, 2**31 - 1)))
    queries = torch.randn(batch_size, num_queries, d, dtype=dtype, generator=gen)
    keys = torch.randn(batch_size, num_pairs, d, dtype=dtype, generator=gen)
    values = torch.randn(batch_size, num_pairs, value_size, dtype=dtype, generator=gen)
    kind = draw(st.sampled_from(["none", "1-D", "2-D"]))
    if kind == "none":
        return queries, keys, values, None
    shape = (batch_size,) if kind == "1-D" else (batch_size, num_queries)
    count = batch_size * (num_queries if kind == "2-D" else 1)
    lens = draw(st.lists(st.integers(0, num_pairs + 1), min_size=count, max_size=count))
    return queries, keys, values, torch.tensor(lens).reshape(shape)


@FAST
@given(attention_inputs(), st.sampled_from([0.0, 0.3, 0.9]))
def test_dot_product_attention_in_eval_mode_equals_sdpa(inputs, p):
    queries, keys, values, lens = inputs
    attention = d2l.DotProductAttention(dropout=p).eval()
    ours = attention(queries, keys, values, lens)
    if lens is None:
        theirs = nn.functional.scaled_dot_product_attention(queries, keys, values)
        torch.testing.assert_close(ours, theirs)
        return
    per_query = _per_query(lens, attention.attention_weights.shape)
    attend = torch.arange(keys.shape[1]) < per_query.unsqueeze(-1)  # (batch, queries, pairs), True = attend
    theirs = nn.functional.scaled_dot_product_attention(queries, keys, values, attn_mask=attend)
    empty = per_query == 0
    assert (ours[empty] == 0).all()  # no key to attend: a zero row, by definition
    torch.testing.assert_close(ours, torch.nan_to_num(theirs, nan=0.0))


@FAST
@given(attention_inputs(), st.floats(0.1, 0.9), st.integers(0, 2**31 - 1))
def test_dropout_acts_in_training_mode_only(inputs, p, seed):
    queries, keys, values, lens = inputs
    attention = d2l.DotProductAttention(dropout=p)
    no_dropout = d2l.DotProductAttention(dropout=0.0)

    attention.eval()
    evaluated = attention(queries, keys, values, lens)
    assert torch.equal(attention(queries, keys, values, lens), evaluated)
    assert torch.equal(evaluated, no_dropout.train()(queries, keys, values, lens))

    attention.train()
    torch.manual_seed(seed)
    trained = attention(queries, keys, values, lens)
    weights = attention.attention_weights
    torch.testing.assert_close(weights, no_dropout.attention_weights, rtol=0, atol=0)  # weights before dropout
    torch.manual_seed(seed)
    assert torch.equal(attention(queries, keys, values, lens), trained)
    torch.manual_seed(seed)
    dropped = nn.functional.dropout(weights, p=p, training=True)
    torch.testing.assert_close(trained, torch.bmm(dropped, values))
