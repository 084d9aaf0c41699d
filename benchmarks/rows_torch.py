"""The CPU table's PyTorch rows of issue 12: masked softmax, attention, additive attention, backward.

* ``masked_softmax`` against ``d2l_masked_softmax``. D2L's version writes into its argument,
  so each call of either function gets its own fresh copy of the scores, made before the
  timer starts: neither side is charged for the copy.
* ``DotProductAttention`` (evaluation mode, weights not read) against SDPA on the same 3-D
  tensors with the equivalent boolean mask, built before timing: shape (batch, 1, pairs) for
  one length per example, (batch, queries, pairs) for one per query. On CPU, 3-D inputs take
  SDPA's unfused path, which also computes the weights (it does not return them).
* ``AdditiveAttention`` against ``D2LStyleAdditiveAttention``, D2L's layer with the same
  parameters (tanh into a new tensor, D2L's masked softmax).
* Forward and backward pass (gradients of queries, keys and values) of
  ``DotProductAttention`` in evaluation mode against SDPA's on the 3-D tensors.
"""

from __future__ import annotations

from functools import partial
from types import ModuleType

import torch

from .baselines import D2LStyleAdditiveAttention, attention_mask, d2l_masked_softmax, sdpa
from .inputs import attention_inputs, forward_backward, length_shape, lengths
from .settings import (
    ADDITIVE_GOAL,
    ADDITIVE_SIZES,
    ATTENTION_GOAL,
    ATTENTION_SIZES,
    BACKWARD_GOAL,
    LENGTH_KINDS,
    PER_EXAMPLE,
    SOFTMAX_GOAL,
    SOFTMAX_SIZES,
)
from .table import Row, emit
from .timing import Timed, interleaved_samples


def softmax_rows(d2l: ModuleType, budget: float, gen: torch.Generator, rows: list[Row]) -> None:
    """``masked_softmax`` against D2L's, each call on a fresh copy of the scores."""
    for size in SOFTMAX_SIZES:
        X = torch.rand(size, generator=gen)
        lens = lengths((size[0],), size[2], gen)
        (cand, base), _ = interleaved_samples(
            [
                Timed(lambda x, lens=lens: d2l.masked_softmax(x, lens), X.clone),
                Timed(lambda x, lens=lens: d2l_masked_softmax(x, lens), X.clone),
            ],
            budget,
            7,
            401,
        )
        emit(rows, Row('masked_softmax', 'd2l_masked_softmax', size, PER_EXAMPLE, cand, base, SOFTMAX_GOAL))


def attention_rows(d2l: ModuleType, budget: float, gen: torch.Generator, rows: list[Row]) -> None:
    """``DotProductAttention`` against SDPA on 3-D tensors, both kinds of lengths."""
    attention = d2l.DotProductAttention(dropout=0.1).eval()
    for size in ATTENTION_SIZES:
        batch_size, num_queries, num_pairs, _ = size
        q, k, v = attention_inputs(size, gen)
        for kind in LENGTH_KINDS:
            lens = lengths(length_shape(kind, batch_size, num_queries), num_pairs, gen)
            mask = attention_mask(lens, num_pairs)
            fns = [partial(attention, q, k, v, lens), partial(sdpa, q, k, v, mask)]
            times, _ = interleaved_samples(fns, budget, 9, 301)
            emit(
                rows,
                Row('DotProductAttention', 'sdpa, mask built before', size, kind, times[0], times[1], ATTENTION_GOAL),
            )


def additive_rows(d2l: ModuleType, budget: float, gen: torch.Generator, rows: list[Row]) -> None:
    """``AdditiveAttention`` against D2L's layer with the same parameters."""
    for size in ADDITIVE_SIZES:
        batch_size, num_queries, num_pairs, query_size, key_size, num_hiddens, value_size = size
        q = torch.randn(batch_size, num_queries, query_size, generator=gen)
        k = torch.randn(batch_size, num_pairs, key_size, generator=gen)
        v = torch.randn(batch_size, num_pairs, value_size, generator=gen)
        lens = lengths((batch_size,), num_pairs, gen)
        ours = d2l.AdditiveAttention(num_hiddens=num_hiddens, dropout=0.1).eval()
        theirs = D2LStyleAdditiveAttention(num_hiddens=num_hiddens, dropout=0.1).eval()
        ours(q, k, v, lens)
        theirs(q, k, v, lens)
        theirs.load_state_dict(ours.state_dict())
        torch.testing.assert_close(ours(q, k, v, lens), theirs(q, k, v, lens), rtol=1e-4, atol=1e-5)
        (cand, base), _ = interleaved_samples(
            [partial(ours, q, k, v, lens), partial(theirs, q, k, v, lens)], budget, 7, 301
        )
        emit(rows, Row('AdditiveAttention', 'D2LStyleAdditiveAttention', size, PER_EXAMPLE, cand, base, ADDITIVE_GOAL))


def backward_rows(d2l: ModuleType, budget: float, gen: torch.Generator, rows: list[Row]) -> None:
    """Forward + backward of ``DotProductAttention`` in evaluation mode against SDPA's (3-D)."""
    attention = d2l.DotProductAttention(dropout=0.1).eval()
    for size in ATTENTION_SIZES:
        batch_size, num_queries, num_pairs, d = size
        q, k, v = attention_inputs(size, gen, requires_grad=True)
        upstream = torch.randn(batch_size, num_queries, d, generator=gen)
        for kind in LENGTH_KINDS:
            lens = lengths(length_shape(kind, batch_size, num_queries), num_pairs, gen)
            mask = attention_mask(lens, num_pairs)
            (cand, base), _ = interleaved_samples(
                [
                    forward_backward(partial(attention, valid_lens=lens), q, k, v, upstream),
                    forward_backward(partial(sdpa, mask=mask), q, k, v, upstream),
                ],
                budget,
                9,
                201,
            )
            emit(
                rows,
                Row('DotProductAttention fwd+bwd', 'sdpa fwd+bwd, mask built before', size, kind, cand, base,
                    BACKWARD_GOAL),
            )  # fmt: skip
