"""The CPU table's rows of issue 27 (and issue 37's length 0), under ``torch.no_grad()`` in evaluation mode.

* ``DotProductAttention`` whose weights are not read against a direct call of SDPA's fused
  kernel on 4-D one-head views with the boolean (batch, 1, 1, pairs) mask built before timing
  (goal 1.10), with every length >= 1 and, in rows of their own, with one example of length 0;
* the layer whose weights are read after every call against ``LayerBeforeIssue27`` read
  the same way (goal 1.05: equal work, within the noise);
* for information, the layer under ``torch.inference_mode``, whose inputs, inference tensors
  without a version counter, it copies.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from types import ModuleType

import torch
from torch import nn

from .baselines import LayerBeforeIssue27, attention_mask
from .inputs import attention_inputs, lengths
from .settings import ATTENTION_SIZES, FUSED_GOAL, PER_EXAMPLE, READ_GOAL, WITH_ZERO
from .table import Row, emit
from .timing import interleaved_samples

FUSED_BASELINE = 'sdpa fused (4-D), mask built before'
UNREAD = 'DotProductAttention, weights not read'


def call_and_read(layer: nn.Module, *args: torch.Tensor) -> torch.Tensor:
    """Call ``layer`` and read its ``attention_weights``, as code that uses them does."""
    layer(*args)
    return layer.attention_weights


def in_inference_mode(layer: nn.Module, *args: torch.Tensor) -> torch.Tensor:
    """Call ``layer`` under ``torch.inference_mode``."""
    with torch.inference_mode():
        return layer(*args)


def _fused_call(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, lens: torch.Tensor) -> Callable[[], torch.Tensor]:
    """A direct SDPA call on 4-D one-head views with the (batch, 1, 1, pairs) mask built now."""
    mask = attention_mask(lens, k.shape[1]).unsqueeze(1)
    return partial(nn.functional.scaled_dot_product_attention, q.unsqueeze(1), k.unsqueeze(1), v.unsqueeze(1),
                   attn_mask=mask)  # fmt: skip


def fused_rows(d2l: ModuleType, budget: float, gen: torch.Generator, rows: list[Row]) -> None:
    """Issue 27, one length per example, every length >= 1 (see the module's docstring).

    Each comparison is timed as a pair of its own, the two calls alternating. In one group
    of five, the order that rotates from round to round still gives each call the same
    predecessor in most rounds (the unread layer ran after the inference-mode call, which
    reads other copies of the inputs, and the fused kernel after the unread layer, which
    leaves them in the cache): at the smallest size, where the inputs fit in the cache, that
    alone moved the ratio by several per cent."""
    unread = d2l.DotProductAttention(dropout=0.1).eval()
    read = d2l.DotProductAttention(dropout=0.1).eval()
    before = LayerBeforeIssue27(dropout=0.1).eval()
    unread_inference = d2l.DotProductAttention(dropout=0.1).eval()
    for size in ATTENTION_SIZES:
        batch_size, _, num_pairs, _ = size
        q, k, v = attention_inputs(size, gen)
        lens = lengths((batch_size,), num_pairs, gen)
        fused = _fused_call(q, k, v, lens)
        with torch.inference_mode():
            inference_inputs = [t.clone() for t in (q, k, v, lens)]
        pairs = [
            (UNREAD, FUSED_BASELINE, partial(unread, q, k, v, lens), fused, FUSED_GOAL),
            ('DotProductAttention, weights read', 'the layer before issue 27, read',
             partial(call_and_read, read, q, k, v, lens), partial(call_and_read, before, q, k, v, lens), READ_GOAL),
            ('... under inference_mode, not read', FUSED_BASELINE,
             partial(in_inference_mode, unread_inference, *inference_inputs), fused, None),
        ]  # fmt: skip
        for name, baseline, candidate, reference, goal in pairs:
            times, _ = interleaved_samples([candidate, reference], budget, 9, 301)
            emit(rows, Row(name, baseline, size, PER_EXAMPLE, times[0], times[1], goal))


def zero_length_rows(d2l: ModuleType, budget: float, seed: int, rows: list[Row]) -> None:
    """Issue 37: the weights-not-read rows of ``fused_rows`` with one example of length 0, whose
    output the layer sets to 0 (the direct call's kernel gives that example what it gives)."""
    gen = torch.Generator().manual_seed(seed)
    unread = d2l.DotProductAttention(dropout=0.1).eval()
    for size in ATTENTION_SIZES:
        batch_size, _, num_pairs, _ = size
        q, k, v = attention_inputs(size, gen)
        lens = lengths((batch_size,), num_pairs, gen, zero=True)
        fused = _fused_call(q, k, v, lens)
        kept = lens > 0
        out = unread(q, k, v, lens)
        torch.testing.assert_close(out[kept], fused().squeeze(1)[kept])
        if out[~kept].any():
            raise AssertionError('DotProductAttention: the output of an example of length 0 is not 0')
        times, _ = interleaved_samples([partial(unread, q, k, v, lens), fused], budget, 9, 301)
        emit(rows, Row(UNREAD, FUSED_BASELINE, size, WITH_ZERO, times[0], times[1], FUSED_GOAL))
