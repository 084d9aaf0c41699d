"""Property-based tests (hypothesis) in PyTorch only (issue 5, item 3); the properties of
``masked_softmax`` that every framework shares are in ``tests/library/test_properties.py``.

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


def _per_query(lens, shape):
    batch_size, num_queries, num_keys = shape
    if lens is None:
        return torch.full((batch_size, num_queries), num_keys)
    return lens.long().reshape(batch_size, -1).expand(batch_size, num_queries)


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
