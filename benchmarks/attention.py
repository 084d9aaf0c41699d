"""Speed and memory of d2l_lib's attention code against named baselines. Run by ``make bench``.

This is a script, not a test: it prints one table and nothing fails on a slow machine.
docs/benchmarks.md records the latest table and explains it (issue 12).

Comparisons (candidate from ``d2l_lib.torch``, baseline defined below):

* ``masked_softmax`` against ``d2l_masked_softmax``, D2L's approach (flatten the scores to
  2-D, repeat each example's length once per query, write -1e6 into the masked scores in
  place, softmax). D2L's version writes into its argument, so each call of either
  function gets its own fresh copy of the scores, made before the timer starts: neither
  side is charged for the copy.
* ``DotProductAttention`` (evaluation mode, weights not read) against
  ``torch.nn.functional.scaled_dot_product_attention`` (SDPA) on the same 3-D tensors with
  the equivalent boolean mask, built before timing: shape (batch, 1, pairs) for one length
  per example, (batch, queries, pairs) for one per query. On CPU, 3-D inputs take SDPA's
  unfused path, which also computes the weights (it does not return them).
* Issue 27, under ``torch.no_grad()``: ``DotProductAttention`` whose weights are not read
  against a direct call of SDPA's fused kernel on 4-D one-head views with the boolean
  (batch, 1, 1, pairs) mask built before timing (goal 1.10); the layer whose weights are
  read after every call against ``LayerBeforeIssue27`` read the same way (goal 1.05: equal
  work, within the noise); for information, the layer under ``torch.inference_mode``.
* ``AdditiveAttention`` against ``D2LStyleAdditiveAttention``, D2L's layer with the same
  parameters (tanh into a new tensor, D2L's masked softmax).
* Forward and backward pass (gradients of queries, keys and values) of
  ``DotProductAttention`` against SDPA's.
* When ``d2l_lib.jax`` / ``d2l_lib.tensorflow`` define ``DotProductAttention``: the
  JAX layer under ``jax.jit`` against ``jax.nn.dot_product_attention``, and the
  TensorFlow layer inside ``tf.function`` against ``keras.ops.dot_product_attention``
  (no goal; issue 12 asks for an explanation of any ratio above 1.5), and each of them
  with its weights unused, only the output leaving the compiled function (issue 27: goal
  1.10).
* AdditiveAttention's peak memory at batch 8, n = m = 1024, h = 64, beside the bound of
  its chunks (issue 27).
* How cost grows: time and peak memory of ``DotProductAttention`` and SDPA's fused kernel
  for one sequence attending to itself, n = 512 ... 8192, d = 64; also drawn into
  docs/attention-scaling.png.

Timing: one process; after a warm-up, every round times the candidate and its
baseline(s) back to back in an order that rotates from round to round; calls shorter than
about 2 ms are timed in groups. Times are medians over the rounds; the ratio is the median
over the rounds of candidate time / baseline time in the same round (below 1: the library
is faster), which cancels most changes of the machine's load between rounds. The rounds
fill a time budget per row (``--budget``), 2.5 times as long for the backward and the
AdditiveAttention rows. All under ``torch.inference_mode()`` except the backward rows.

Peak memory: the growth of the process's peak resident memory (Linux VmHWM, reset
through /proc/self/clear_refs) during one call, measured in a child process in which
glibc maps every allocation of 16 KiB or more afresh and unmaps it when it is freed
(MALLOC_MMAP_THRESHOLD_), so that memory reused from earlier calls cannot hide an
allocation. (tracemalloc does not see PyTorch's allocations.)

    python benchmarks/attention.py                 # the table of docs/benchmarks.md
    python benchmarks/attention.py --threads 1     # pin the intra-op thread count
    python benchmarks/attention.py --lib FILE.py   # time the library code in FILE instead
"""

from __future__ import annotations

import argparse
import gc
import importlib.util
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from types import ModuleType

import numpy as np
import torch
from torch import nn

ROOT = Path(__file__).resolve().parents[1]
PLOT = ROOT / 'docs' / 'attention-scaling.png'

SOFTMAX_SIZES = [(2, 2, 4), (32, 128, 128), (32, 512, 512)]  # (batch, queries, keys)
ATTENTION_SIZES = [(32, 128, 128, 64), (32, 512, 512, 64), (8, 1024, 1024, 64)]  # (batch, queries, pairs, d)
# (batch, queries, pairs, query length, key length, hidden units, value length): the chapter's
# example, one decoder step of a D2L-sized seq2seq model, and self-attention over 128 tokens.
ADDITIVE_SIZES = [(2, 1, 10, 20, 2, 8, 4), (128, 1, 35, 256, 256, 256, 256), (32, 128, 128, 64, 64, 32, 64)]
SCALING_LENGTHS = [512, 1024, 2048, 4096, 8192]  # one sequence attending to itself, d = 64
SCALING_D = 64

SOFTMAX_GOAL = 0.9  # masked_softmax at most 0.9x D2L's, at every size
ATTENTION_GOAL = 1.0  # DotProductAttention no slower than SDPA (aim: 0.85), every size and kind of lengths
ATTENTION_AIM = 0.85
FUSED_GOAL = 1.10  # issue 27: weights not read, at most 1.10x a direct call of SDPA's fused kernel
READ_GOAL = 1.05  # issue 27: weights read, no slower than the layer before issue 27 (5%: the noise of equal work)
FRAMEWORK_GOAL = 1.10  # issue 27: JAX and TensorFlow layers, weights unused, at most 1.10x the built-in
# AdditiveAttention's peak memory (issue 27): batch 8, n = m = 1024, query, key and value length 64, h = 64
ADDITIVE_MEMORY_SIZE = (8, 1024, 1024, 64, 64, 64, 64)
ADDITIVE_GOAL = 1.0  # AdditiveAttention no slower than D2L's
BACKWARD_GOAL = 1.0  # forward + backward no slower than SDPA's
FRAMEWORK_LIMIT = 1.5  # JAX / TensorFlow: no goal, but a larger ratio needs an explanation
BACKWARD_BUDGET = 2.5  # the backward rows get this many times the budget: their calls are long
ADDITIVE_BUDGET = 2.5  # so do the AdditiveAttention rows: near-equal work on both sides needs many rounds

LENGTH_KINDS = ('per example', 'per query')


# ---------------------------------------------------------------- baselines
def d2l_masked_softmax(X: torch.Tensor, valid_lens: torch.Tensor | None) -> torch.Tensor:
    """BASELINE: D2L's masked softmax, as D2L computes it. It writes into ``X``.

    The scores are viewed as a 2-D (batch * queries, keys) matrix; one length per example
    is repeated once per query; a float ``arange`` compared with the lengths marks the
    keys to keep, and every other score of the view (and so of ``X``) is set to -1e6 by
    boolean indexing before the softmax. Rows of length 0 are spread evenly over their
    keys, and there are no argument checks.
    """
    if valid_lens is None:
        return nn.functional.softmax(X, dim=-1)
    shape = X.shape
    if valid_lens.dim() == 1:
        lens = torch.repeat_interleave(valid_lens, shape[1])
    else:
        lens = valid_lens.reshape(-1)
    rows = X.reshape(-1, shape[-1])  # a view of X
    keep = torch.arange(shape[-1], dtype=torch.float32, device=X.device)[None, :] < lens[:, None]
    rows[~keep] = -1e6
    return nn.functional.softmax(rows.reshape(shape), dim=-1)


class D2LStyleAdditiveAttention(nn.Module):
    """BASELINE: D2L's additive attention layer; the parameters are named as in the library's.

    Projects queries and keys, adds every pair by broadcasting, applies ``torch.tanh``
    (a new tensor), scores with ``w_v`` and normalizes with ``d2l_masked_softmax``.
    """

    def __init__(self, num_hiddens: int, dropout: float):
        super().__init__()
        self.W_k = nn.LazyLinear(num_hiddens, bias=False)
        self.W_q = nn.LazyLinear(num_hiddens, bias=False)
        self.w_v = nn.LazyLinear(1, bias=False)
        self.dropout = nn.Dropout(dropout)

    def forward(self, queries, keys, values, valid_lens=None):
        queries, keys = self.W_q(queries), self.W_k(keys)
        features = torch.tanh(queries.unsqueeze(2) + keys.unsqueeze(1))
        scores = self.w_v(features).squeeze(-1)
        self.attention_weights = d2l_masked_softmax(scores, valid_lens)
        return torch.bmm(self.dropout(self.attention_weights), values)


class LayerBeforeIssue27(nn.Module):
    """BASELINE: ``DotProductAttention`` as the library wrote it before issue 27.

    Every call computes the scores and the masked softmax (the library's own, in place) and
    keeps the weights in a plain attribute; the output is their product with the values.
    """

    def __init__(self, dropout: float):
        super().__init__()
        self.dropout = nn.Dropout(dropout)

    def forward(self, queries, keys, values, valid_lens=None):
        from d2l_lib import torch as d2l

        d2l._check_attention_inputs(queries, keys, values, same_length=True)
        scores = torch.bmm(queries / math.sqrt(queries.shape[-1]), keys.transpose(1, 2))
        self.attention_weights = d2l._masked_softmax(scores, valid_lens, overwrite=True)
        return torch.bmm(self.dropout(self.attention_weights), values)


def attention_mask(valid_lens: torch.Tensor, num_keys: int) -> torch.Tensor:
    """The boolean mask (True = attend) equivalent to ``valid_lens``, in its smallest shape:
    (batch, 1, keys) for one length per example, (batch, queries, keys) for one per query."""
    return torch.arange(num_keys, device=valid_lens.device) < valid_lens.reshape(valid_lens.shape[0], -1, 1)


def sdpa(queries, keys, values, mask=None):
    """BASELINE: SDPA on the 3-D tensors (on CPU: its unfused path, which computes the weights)."""
    return nn.functional.scaled_dot_product_attention(queries, keys, values, attn_mask=mask)


def sdpa_fused(queries, keys, values, mask=None):
    """For scale: SDPA on a 4-D one-head view, which on CPU runs the fused (flash) kernel."""
    mask = None if mask is None else mask.unsqueeze(1)
    out = nn.functional.scaled_dot_product_attention(
        queries.unsqueeze(1), keys.unsqueeze(1), values.unsqueeze(1), attn_mask=mask
    )
    return out.squeeze(1)


# ---------------------------------------------------------------- timing
class Timed:
    """A function to time. With ``prepare``, each call gets ``fn(prepare())``; the
    preparation (e.g. a fresh copy of an input) happens before the timer starts."""

    def __init__(self, fn: Callable, prepare: Callable[[], object] | None = None):
        self.fn, self.prepare = fn, prepare


def _time_group(timed: Timed, inner: int, sync: Callable[[object], object] | None = None) -> float:
    """Milliseconds per call, over ``inner`` calls in a row.

    ``sync``, for an accelerator that runs calls asynchronously: called with ``None`` before
    the timer starts (to finish earlier work) and with the last call's result before it stops
    (to wait for the calls to finish).
    """
    if sync is not None:
        sync(None)
    result = None
    if timed.prepare is None:
        start = time.perf_counter_ns()
        for _ in range(inner):
            result = timed.fn()
    else:
        prepared = [timed.prepare() for _ in range(inner)]
        start = time.perf_counter_ns()
        for arg in prepared:
            result = timed.fn(arg)
    if sync is not None:
        sync(result)
    elapsed = time.perf_counter_ns() - start
    return elapsed / inner / 1e6


def interleaved_samples(
    fns: list, budget_s: float, min_rounds: int, max_rounds: int, sync: Callable[[object], object] | None = None
) -> tuple[list[list[float]], int]:
    """Milliseconds per call of each of ``fns`` (callables or ``Timed``) in every round, and the rounds.

    Warm-up first; then every round times each function once, back to back, the order
    rotating from round to round so that none always runs first. Calls faster than
    about 2 ms are timed in groups of ``inner`` calls, to rise above timer noise. ``sync``:
    see ``_time_group`` (a GPU's calls are timed from launch until they finish).
    """
    timed = [f if isinstance(f, Timed) else Timed(f) for f in fns]
    for _ in range(2):
        for t in timed:
            _time_group(t, 1, sync)
    # The slowest function's time per call, as the median of 5 calls: robust to one stalled call.
    one = max(statistics.median(_time_group(t, 1, sync) for _ in range(5)) for t in timed)
    inner = max(1, min(1000, math.ceil(2.0 / max(one, 1e-4))))
    rounds = int(budget_s * 1000 / (len(timed) * inner * one + 1e-9))
    rounds = max(min_rounds, min(max_rounds, rounds)) | 1  # odd, so the median is a sample
    samples: list[list[float]] = [[] for _ in timed]
    for r in range(rounds):
        for i in range(len(timed)):
            j = (i + r) % len(timed)
            samples[j].append(_time_group(timed[j], inner, sync))
    return samples, rounds


def interleaved_medians(fns: list, budget_s: float, min_rounds: int, max_rounds: int) -> tuple[list[float], int]:
    """Median milliseconds per call of each of ``fns`` (see ``interleaved_samples``), and the rounds."""
    samples, rounds = interleaved_samples(fns, budget_s, min_rounds, max_rounds)
    return [statistics.median(s) for s in samples], rounds


# ---------------------------------------------------------------- set-up
def load_library(path: str | None) -> ModuleType:
    """``d2l_lib.torch``, or the module in file ``path`` (to time a proposed change)."""
    if path is None:
        from d2l_lib import torch as d2l

        return d2l
    spec = importlib.util.spec_from_file_location('candidate_lib', path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def cpu_model() -> str:
    try:
        for line in Path('/proc/cpuinfo').read_text().splitlines():
            if line.startswith('model name'):
                return line.split(':', 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def memory_gib() -> str:
    try:
        for line in Path('/proc/meminfo').read_text().splitlines():
            if line.startswith('MemTotal:'):
                return f'{int(line.split()[1]) / 2**20:.1f} GiB'
    except OSError:
        pass
    return 'n/a'


def load_average() -> str:
    try:
        return ' '.join(Path('/proc/loadavg').read_text().split()[:3])
    except OSError:
        return 'n/a'


def torch_build() -> str:
    """MKL and oneDNN versions from torch's build configuration, if it names them."""
    parts = []
    for line in torch.__config__.show().splitlines():
        line = line.strip(' -')
        if 'Math Kernel Library Version' in line:
            parts.append('MKL ' + line.split('Version', 1)[1].split('-', 1)[0].strip())
        elif 'MKL-DNN' in line or line.startswith('oneDNN'):
            versions = [word for word in line.split() if word[:1] == 'v' and word[1:2].isdigit()]
            parts.append('oneDNN ' + (versions[0][1:] if versions else '?'))
        elif line.startswith('CPU capability usage'):
            parts.append(line.split(':', 1)[1].strip())
    return ', '.join(parts)


def lengths(shape: tuple[int, ...], num_keys: int, generator: torch.Generator) -> torch.Tensor:
    """Valid lengths between 1 and the number of keys, seeded."""
    return torch.randint(1, num_keys + 1, shape, generator=generator)


def length_shape(kind: str, batch_size: int, num_queries: int) -> tuple[int, ...]:
    return (batch_size,) if kind == 'per example' else (batch_size, num_queries)


def forward_backward(layer: Callable, queries, keys, values, upstream) -> Callable[[], None]:
    """A function that runs ``layer(queries, keys, values)`` and back-propagates ``upstream``."""

    def run():
        layer(queries, keys, values).backward(upstream)
        queries.grad = keys.grad = values.grad = None

    return run


def _gradients(layer: Callable, *inputs: torch.Tensor) -> list[torch.Tensor]:
    inputs = [t.clone().requires_grad_() for t in inputs]
    layer(*inputs).sum().backward()
    return [t.grad for t in inputs]


def check_agreement(d2l: ModuleType) -> None:
    """Refuse to time things that do not compute the same result."""
    gen = torch.Generator().manual_seed(1)
    X = torch.rand(3, 4, 7, generator=gen)
    for lens in (torch.tensor([1, 7, 3]), torch.tensor([[1, 2, 3, 4], [7, 6, 5, 4], [2, 2, 9, 1]])):
        torch.testing.assert_close(d2l.masked_softmax(X, lens), d2l_masked_softmax(X.clone(), lens))
        q, k, v = (torch.randn(3, n, 8, generator=gen) for n in (4, 7, 7))
        attention = d2l.DotProductAttention(dropout=0.5).eval()
        mask = attention_mask(lens, 7)
        torch.testing.assert_close(attention(q, k, v, lens), sdpa(q, k, v, mask))
        torch.testing.assert_close(attention(q, k, v, lens), sdpa_fused(q, k, v, mask))
        before = LayerBeforeIssue27(dropout=0.5).eval()
        torch.testing.assert_close(attention(q, k, v, lens), before(q, k, v, lens))
        torch.testing.assert_close(attention.attention_weights, before.attention_weights, rtol=0, atol=0)
        for ours, theirs in zip(
            _gradients(partial(attention, valid_lens=lens), q, k, v), _gradients(partial(sdpa, mask=mask), q, k, v)
        ):
            torch.testing.assert_close(ours, theirs)
        additive = d2l.AdditiveAttention(num_hiddens=5, dropout=0.5).eval()
        q6 = torch.randn(3, 4, 6, generator=gen)
        expected = additive(q6, k, v, lens)
        baseline = D2LStyleAdditiveAttention(num_hiddens=5, dropout=0.5).eval()
        baseline(q6, k, v, lens)  # sizes the lazy layers
        baseline.load_state_dict(additive.state_dict())
        torch.testing.assert_close(baseline(q6, k, v, lens), expected)


# ---------------------------------------------------------------- the table
COLUMNS = [
    ('candidate', 35),
    ('baseline', 34),
    ('size', 32),
    ('lengths', 11),
    ('candidate ms', 12),
    ('baseline ms', 11),
    ('ratio', 5),
    ('goal', 7),
    ('met', 3),
    ('rounds', 6),
]


def header() -> str:
    return (
        '| '
        + ' | '.join(f'{name:<{width}}' if i < 4 else f'{name:>{width}}' for i, (name, width) in enumerate(COLUMNS))
        + ' |\n'
        + '|'
        + '|'.join('-' * (width + 2) for _, width in COLUMNS)
        + '|'
    )


class Row:
    """One line of the table, from the times of the candidate and the baseline in the same rounds.

    The times shown are medians; the ratio is the median over the rounds of the candidate's
    time divided by the baseline's in the same round, which cancels most of the changes in
    the machine's load from round to round. ``limit``: no goal, but a larger ratio needs an
    explanation.
    """

    def __init__(
        self,
        candidate: str,
        baseline: str,
        size: tuple,
        lengths: str,
        cand: list[float],
        base: list[float],
        goal: float | None,
        limit: float | None = None,
    ):
        self.candidate, self.baseline, self.size, self.lengths = candidate, baseline, size, lengths
        self.cand_ms, self.base_ms = statistics.median(cand), statistics.median(base)
        self.ratio = statistics.median(c / b for c, b in zip(cand, base))
        self.goal, self.rounds, self.limit = goal, len(cand), limit

    @property
    def met(self) -> str:
        if self.goal is not None:
            return 'yes' if self.ratio <= self.goal else 'NO'
        if self.limit is not None and self.ratio > self.limit:
            return '(!)'
        return '-'

    def __str__(self) -> str:
        goal = f'<= {self.goal:g}' if self.goal is not None else '-'
        cells = [
            self.candidate,
            self.baseline,
            str(self.size),
            self.lengths,
            f'{self.cand_ms:.4f}',
            f'{self.base_ms:.4f}',
            f'{self.ratio:.2f}',
            goal,
            self.met,
            str(self.rounds),
        ]
        return (
            '| '
            + ' | '.join(f'{c:<{w}}' if i < 4 else f'{c:>{w}}' for i, (c, (_, w)) in enumerate(zip(cells, COLUMNS)))
            + ' |'
        )


def emit(rows: list[Row], row: Row) -> None:
    rows.append(row)
    print(row, flush=True)


def softmax_rows(d2l, budget, gen, rows):
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
        emit(rows, Row('masked_softmax', 'd2l_masked_softmax', size, 'per example', cand, base, SOFTMAX_GOAL))


def attention_rows(d2l, budget, gen, rows):
    attention = d2l.DotProductAttention(dropout=0.1).eval()
    for size in ATTENTION_SIZES:
        batch_size, num_queries, num_pairs, d = size
        q = torch.randn(batch_size, num_queries, d, generator=gen)
        k = torch.randn(batch_size, num_pairs, d, generator=gen)
        v = torch.randn(batch_size, num_pairs, d, generator=gen)
        for kind in LENGTH_KINDS:
            lens = lengths(length_shape(kind, batch_size, num_queries), num_pairs, gen)
            mask = attention_mask(lens, num_pairs)
            fns = [partial(attention, q, k, v, lens), partial(sdpa, q, k, v, mask)]
            times, _ = interleaved_samples(fns, budget, 9, 301)
            emit(
                rows,
                Row('DotProductAttention', 'sdpa, mask built before', size, kind, times[0], times[1], ATTENTION_GOAL),
            )


def _call_and_read(layer, *args):
    layer(*args)
    return layer.attention_weights


def _in_inference_mode(layer, *args):
    with torch.inference_mode():
        return layer(*args)


def fused_rows(d2l, budget, gen, rows):
    """Issue 27, under torch.no_grad() in evaluation mode, one length per example: the layer
    whose weights are not read against a direct call of SDPA's fused kernel on 4-D one-head
    views with the boolean (batch, 1, 1, pairs) mask built before timing; the layer whose
    weights are read after every call against the layer before issue 27, read the same way.
    For information: the layer under torch.inference_mode, whose inputs, inference tensors
    without a version counter, it copies.

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
        batch_size, num_queries, num_pairs, d = size
        q = torch.randn(batch_size, num_queries, d, generator=gen)
        k = torch.randn(batch_size, num_pairs, d, generator=gen)
        v = torch.randn(batch_size, num_pairs, d, generator=gen)
        lens = lengths((batch_size,), num_pairs, gen)
        mask = attention_mask(lens, num_pairs).unsqueeze(1)  # (batch, 1, 1, pairs)
        q4, k4, v4 = q.unsqueeze(1), k.unsqueeze(1), v.unsqueeze(1)
        fused = partial(nn.functional.scaled_dot_product_attention, q4, k4, v4, attn_mask=mask)
        with torch.inference_mode():
            inference_inputs = [t.clone() for t in (q, k, v, lens)]
        base = 'sdpa fused (4-D), mask built before'
        pairs = [
            ('DotProductAttention, weights not read', base, partial(unread, q, k, v, lens), fused, FUSED_GOAL),
            (
                'DotProductAttention, weights read',
                'the layer before issue 27, read',
                partial(_call_and_read, read, q, k, v, lens),
                partial(_call_and_read, before, q, k, v, lens),
                READ_GOAL,
            ),
            (
                '... under inference_mode, not read',
                base,
                partial(_in_inference_mode, unread_inference, *inference_inputs),
                fused,
                None,
            ),
        ]
        for name, baseline, candidate, reference, goal in pairs:
            times, _ = interleaved_samples([candidate, reference], budget, 9, 301)
            emit(rows, Row(name, baseline, size, 'per example', times[0], times[1], goal))


def additive_rows(d2l, budget, gen, rows):
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
        emit(
            rows, Row('AdditiveAttention', 'D2LStyleAdditiveAttention', size, 'per example', cand, base, ADDITIVE_GOAL)
        )


def backward_rows(d2l, budget, gen, rows):
    attention = d2l.DotProductAttention(dropout=0.1).eval()
    for size in ATTENTION_SIZES:
        batch_size, num_queries, num_pairs, d = size
        q = torch.randn(batch_size, num_queries, d, generator=gen).requires_grad_()
        k = torch.randn(batch_size, num_pairs, d, generator=gen).requires_grad_()
        v = torch.randn(batch_size, num_pairs, d, generator=gen).requires_grad_()
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
                Row(
                    'DotProductAttention fwd+bwd',
                    'sdpa fwd+bwd, mask built before',
                    size,
                    kind,
                    cand,
                    base,
                    BACKWARD_GOAL,
                ),
            )


# ---------------------------------------------------------------- JAX and TensorFlow
def framework_versions() -> dict[str, str]:
    """Versions of JAX and TensorFlow/Keras if their d2l_lib modules define DotProductAttention."""
    found = {}
    for name in ('jax', 'tensorflow'):
        try:
            module = importlib.import_module(f'd2l_lib.{name}')
        except Exception as error:  # noqa: BLE001 - a module being written may fail to import in any way
            found[name] = f'not compared (d2l_lib.{name} does not import: {type(error).__name__})'
            continue
        if not hasattr(module, 'DotProductAttention'):
            found[name] = f'not compared (d2l_lib.{name} has no DotProductAttention yet)'
            continue
        if name == 'jax':
            import jax

            found[name] = f'jax {jax.__version__}'
        else:
            import keras
            import tensorflow as tf

            found[name] = f'tensorflow {tf.__version__}, keras {keras.__version__} ({keras.backend.backend()})'
    return found


def _jax_call(fn, *args):
    import jax

    return jax.block_until_ready(fn(*args))


def _tf_call(fn, *args):
    # Eager TensorFlow on the CPU returns once the results are computed: nothing to wait for,
    # and no copy into NumPy (which would charge the 32 MiB weights to one side only).
    return fn(*args)


def jax_rows(budget, rows):
    import jax
    import jax.numpy as jnp

    from d2l_lib import jax as d2l_jax

    layer = d2l_jax.DotProductAttention(dropout=0.1)
    rng = np.random.default_rng(2)
    for size in ATTENTION_SIZES:
        batch_size, num_queries, num_pairs, d = size
        q, k, v = (
            jnp.asarray(rng.standard_normal(shape, dtype=np.float32))
            for shape in ((batch_size, num_queries, d), (batch_size, num_pairs, d), (batch_size, num_pairs, d))
        )
        lens = jnp.asarray(rng.integers(1, num_pairs + 1, (batch_size,)))
        mask = jnp.arange(num_pairs) < lens.reshape(batch_size, -1, 1)
        params = layer.init(jax.random.key(0), q[:1, :1], k[:1], v[:1], lens[:1])
        ours = jax.jit(partial(layer.apply, params))  # returns the output and the weights
        # The weights unused: only the output leaves the compiled function
        ours_output = jax.jit(lambda q, k, v, lens, params=params: layer.apply(params, q, k, v, lens)[0])
        theirs = jax.jit(
            lambda q, k, v, mask: jax.nn.dot_product_attention(
                q[:, :, None], k[:, :, None], v[:, :, None], mask=mask[:, None]
            )[:, :, 0]
        )
        np.testing.assert_allclose(ours(q, k, v, lens)[0], theirs(q, k, v, mask), rtol=1e-4, atol=1e-5)
        (cand, base, unused), _ = interleaved_samples(
            [
                partial(_jax_call, ours, q, k, v, lens),
                partial(_jax_call, theirs, q, k, v, mask),
                partial(_jax_call, ours_output, q, k, v, lens),
            ],
            budget * 1.5,
            9,
            301,
        )
        emit(
            rows,
            Row(
                'jax DotProductAttention, jit',
                'jax.nn.dot_product_attention, jit',
                size,
                'per example',
                cand,
                base,
                None,
                FRAMEWORK_LIMIT,
            ),
        )
        emit(
            rows,
            Row(
                '... weights unused',
                'jax.nn.dot_product_attention, jit',
                size,
                'per example',
                unused,
                base,
                FRAMEWORK_GOAL,
            ),
        )


def tensorflow_rows(budget, rows):
    import keras
    import tensorflow as tf

    from d2l_lib import tensorflow as d2l_tf

    layer = d2l_tf.DotProductAttention(dropout=0.1)
    rng = np.random.default_rng(3)
    for size in ATTENTION_SIZES:
        batch_size, num_queries, num_pairs, d = size
        q, k, v = (
            tf.constant(rng.standard_normal(shape, dtype=np.float32))
            for shape in ((batch_size, num_queries, d), (batch_size, num_pairs, d), (batch_size, num_pairs, d))
        )
        lens = tf.constant(rng.integers(1, num_pairs + 1, (batch_size,)))
        mask = tf.range(num_pairs) < tf.reshape(tf.cast(lens, tf.int32), (batch_size, -1, 1))

        @tf.function
        def ours(q, k, v, lens):
            output = layer(q, k, v, lens)
            return output, layer.attention_weights  # the weights are computed and returned

        @tf.function
        def ours_output(q, k, v, lens):
            return (layer(q, k, v, lens),)  # the weights unused

        @tf.function
        def theirs(q, k, v, mask):
            out = keras.ops.dot_product_attention(q[:, :, None], k[:, :, None], v[:, :, None], mask=mask[:, None])
            return (out[:, :, 0],)

        np.testing.assert_allclose(
            ours(q, k, v, lens)[0].numpy(), theirs(q, k, v, mask)[0].numpy(), rtol=1e-4, atol=1e-5
        )
        (cand, base, unused), _ = interleaved_samples(
            [
                partial(_tf_call, ours, q, k, v, lens),
                partial(_tf_call, theirs, q, k, v, mask),
                partial(_tf_call, ours_output, q, k, v, lens),
            ],
            budget * 1.5,
            9,
            301,
        )
        emit(
            rows,
            Row(
                'tf DotProductAttention, tf.function',
                'keras.ops.dot_product_attention',
                size,
                'per example',
                cand,
                base,
                None,
                FRAMEWORK_LIMIT,
            ),
        )
        emit(
            rows,
            Row(
                '... weights unused',
                'keras.ops.dot_product_attention',
                size,
                'per example',
                unused,
                base,
                FRAMEWORK_GOAL,
            ),
        )


# ---------------------------------------------------------------- how cost grows
def _proc_status(key: str) -> int:
    for line in Path('/proc/self/status').read_text().splitlines():
        if line.startswith(key):
            return int(line.split()[1]) * 1024
    raise KeyError(key)


def memory_child(lib: str | None) -> None:
    """Print, as JSON, the peak memory of one call of each implementation at each length."""
    d2l = load_library(lib)
    attention = d2l.DotProductAttention(dropout=0.0).eval()
    peaks = {}
    with torch.inference_mode():
        small = torch.randn(1, 16, SCALING_D)
        attention(small, small, small)  # load and initialize the kernels first
        sdpa_fused(small, small, small)
        for n in SCALING_LENGTHS:
            q, k, v = (torch.randn(1, n, SCALING_D) for _ in range(3))
            peaks[n] = []
            for fn in (partial(attention, q, k, v), partial(sdpa_fused, q, k, v)):
                gc.collect()
                Path('/proc/self/clear_refs').write_text('5')  # reset the peak (VmHWM) to the current RSS
                before = _proc_status('VmRSS:')
                out = fn()
                peaks[n].append(_proc_status('VmHWM:') - before)
                del out
                attention.attention_weights = None
    print(json.dumps(peaks))


def additive_memory_child(lib: str | None) -> None:
    """Print, as JSON, the peak memory of one AdditiveAttention call at ADDITIVE_MEMORY_SIZE, no grad."""
    d2l = load_library(lib)
    batch_size, num_queries, num_pairs, query_size, key_size, num_hiddens, value_size = ADDITIVE_MEMORY_SIZE
    layer = d2l.AdditiveAttention(num_hiddens=num_hiddens, dropout=0.0).eval()
    with torch.no_grad():
        small = [torch.randn(2, 3, n) for n in (query_size, key_size, value_size)]
        layer(*small)  # sizes the lazy layers, loads the kernels
        q = torch.randn(batch_size, num_queries, query_size)
        k = torch.randn(batch_size, num_pairs, key_size)
        v = torch.randn(batch_size, num_pairs, value_size)
        lens = torch.randint(1, num_pairs + 1, (batch_size,))
        gc.collect()
        Path('/proc/self/clear_refs').write_text('5')
        before = _proc_status('VmRSS:')
        out = layer(q, k, v, lens)
        peak = _proc_status('VmHWM:') - before
        del out
    print(json.dumps({'peak': peak, 'max_features': getattr(layer, 'max_features', None)}))


def additive_bound(chunk_features: int | None, size: tuple[int, ...] = ADDITIVE_MEMORY_SIZE, itemsize: int = 4) -> str:
    """The bound on AdditiveAttention's extra memory at ``size`` when it computes at most
    ``chunk_features`` features at a time: one chunk's features and scores, all scores (which
    become the weights), the projected queries and keys, and the output."""
    if chunk_features is None:
        return 'none (the library does not compute in chunks)'
    batch_size, n, m, _, _, h, v = size
    chunk = max(1, chunk_features // (batch_size * m * h))
    features = max(chunk_features, batch_size * m * h)
    numbers = features + batch_size * chunk * m + batch_size * n * m + batch_size * (n + m) * h + batch_size * n * v
    return f'{numbers * itemsize / 2**20:.1f} MiB ({chunk} queries a chunk)'


def additive_memory(lib: str | None) -> None:
    """Print the peak memory of AdditiveAttention at ADDITIVE_MEMORY_SIZE beside its bound."""
    batch_size, n, m, _, _, h, v = ADDITIVE_MEMORY_SIZE
    whole = batch_size * n * m * h * 4
    print()
    print(
        f'AdditiveAttention peak memory, one call without autograd, batch {batch_size}, n = {n}, m = {m}, '
        f'h = {h}, value length {v}, float32 (growth of peak resident memory, see the docstring):'
    )
    if not Path('/proc/self/clear_refs').exists():
        print('not measured (needs Linux /proc/self/clear_refs)')
        return
    env = dict(os.environ, MALLOC_MMAP_THRESHOLD_=str(16 * 1024))
    command = [sys.executable, __file__, '--additive-memory-child'] + (['--lib', lib] if lib else [])
    result = subprocess.run(command, capture_output=True, text=True, env=env, timeout=900)
    if result.returncode != 0:
        print(f'not measured (child failed: {result.stderr.strip().splitlines()[-1:]})')
        return
    found = json.loads(result.stdout.strip().splitlines()[-1])
    print(
        f'| peak {found["peak"] / 2**20:8.1f} MiB | bound {additive_bound(found["max_features"])} | '
        f'the whole (batch, n, m, h) features tensor: {whole / 2**20:.0f} MiB |'
    )


def measure_memory(lib: str | None) -> dict[int, list[int]] | str:
    """Peak memory per length and implementation, from a child process; or why there is none."""
    if not Path('/proc/self/clear_refs').exists():
        return 'not measured (needs Linux /proc/self/clear_refs)'
    env = dict(os.environ, MALLOC_MMAP_THRESHOLD_=str(16 * 1024))
    command = [sys.executable, __file__, '--memory-child'] + (['--lib', lib] if lib else [])
    result = subprocess.run(command, capture_output=True, text=True, env=env, timeout=900)
    if result.returncode != 0:
        return f'not measured (child failed: {result.stderr.strip().splitlines()[-1:]})'
    return {int(n): peaks for n, peaks in json.loads(result.stdout.strip().splitlines()[-1]).items()}


def scaling(d2l, budget, plot: Path | None, lib: str | None) -> None:
    attention = d2l.DotProductAttention(dropout=0.0).eval()
    times = {}
    with torch.inference_mode():
        gen = torch.Generator().manual_seed(4)
        for n in SCALING_LENGTHS:
            q, k, v = (torch.randn(1, n, SCALING_D, generator=gen) for _ in range(3))
            times[n], _ = interleaved_medians(
                [partial(attention, q, k, v), partial(sdpa_fused, q, k, v)], budget, 3, 51
            )
            attention.attention_weights = None
    memory = measure_memory(lib)
    print()
    print(
        f'How cost grows: one sequence of n tokens attending to itself, batch 1, d = {SCALING_D}, no mask; '
        'peak = growth of peak resident memory during one call (see the docstring)'
    )
    print(
        '| n    | DotProductAttention ms | sdpa fused ms | ratio | DotProductAttention peak MiB '
        '| sdpa fused peak MiB | weights if read MiB |'
    )
    print(
        '|------|------------------------|---------------|-------|------------------------------'
        '|---------------------|---------------------|'
    )
    for n in SCALING_LENGTHS:
        ours, fused = times[n]
        if isinstance(memory, dict):
            mem = f'| {memory[n][0] / 2**20:28.1f} | {memory[n][1] / 2**20:19.1f} '
        else:
            mem = f'| {"n/a":>28} | {"n/a":>19} '
        print(f'| {n:<4} | {ours:22.2f} | {fused:13.2f} | {ours / fused:5.2f} {mem}| {4 * n * n / 2**20:19.1f} |')
    if isinstance(memory, str):
        print(f'peak memory {memory}')
    for name, column in (('DotProductAttention', 0), ('sdpa fused', 1)):
        t = np.array([times[n][column] for n in SCALING_LENGTHS])
        slope = np.polyfit(np.log(SCALING_LENGTHS), np.log(t), 1)[0]
        line = f'{name}: time grows as n^{slope:.2f}'
        if isinstance(memory, dict):
            m = np.array([memory[n][column] for n in SCALING_LENGTHS], dtype=float)
            last = np.log(m[-1] / m[-2]) / np.log(2) if m[-2] > 0 and m[-1] > 0 else float('nan')
            line += f', peak memory from n = 4096 to 8192 as n^{last:.2f}'
        print(line)
    if plot is not None:
        draw(times, memory, plot)
        print(f'plot: {plot.relative_to(ROOT) if plot.is_relative_to(ROOT) else plot}')


def draw(times, memory, path: Path) -> None:
    import matplotlib

    matplotlib.use('Agg')
    from matplotlib import pyplot as plt

    n = np.array(SCALING_LENGTHS, dtype=float)
    fig, (left, right) = plt.subplots(1, 2, figsize=(9, 3.6))
    left.loglog(n, [times[i][0] for i in SCALING_LENGTHS], 'o-', label='DotProductAttention (weights not read)')
    left.loglog(n, [times[i][1] for i in SCALING_LENGTHS], 's-', label='SDPA fused kernel')
    left.set_xlabel('sequence length n')
    left.set_ylabel('time per call (ms)')
    left.set_title('time')
    left.legend(fontsize='small')
    if isinstance(memory, dict):
        right.loglog(n, [memory[i][0] / 2**20 for i in SCALING_LENGTHS], 'o-', label='DotProductAttention')
        right.loglog(n, [max(memory[i][1], 1) / 2**20 for i in SCALING_LENGTHS], 's-', label='SDPA fused kernel')
    right.loglog(n, 4 * n * n / 2**20, 'k:', label='$n^2$ float32 weights')
    right.loglog(n, 4 * n * SCALING_D / 2**20, 'k--', label=f'$n \\times {SCALING_D}$ float32 output')
    right.set_xlabel('sequence length n')
    right.set_ylabel('peak memory of one call (MiB)')
    right.set_title('memory')
    right.legend(fontsize='small')
    for ax in (left, right):
        ax.set_xticks(n, [str(int(i)) for i in n])
        ax.minorticks_off()
    fig.suptitle(
        f'One sequence attending to itself, batch 1, d = {SCALING_D}, {torch.get_num_threads()} threads',
        fontsize='medium',
    )
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)


# ---------------------------------------------------------------- main
def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--threads', type=int, default=None, help='torch intra-op threads (default: torch default)')
    parser.add_argument('--lib', default=None, help='a .py file to time instead of d2l_lib.torch')
    parser.add_argument('--budget', type=float, default=5.0, help='seconds of timing per row (default 5)')
    parser.add_argument('--plot', type=Path, default=PLOT, help=f'where to draw the scaling plot (default {PLOT})')
    parser.add_argument('--no-plot', action='store_true', help='do not draw the plot')
    parser.add_argument('--no-scaling', action='store_true', help='skip the scaling measurements')
    parser.add_argument('--memory-child', action='store_true', help=argparse.SUPPRESS)
    parser.add_argument('--additive-memory-child', action='store_true', help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.threads is not None:
        torch.set_num_threads(args.threads)
    if args.memory_child:
        memory_child(args.lib)
        return
    if args.additive_memory_child:
        additive_memory_child(args.lib)
        return
    d2l = load_library(args.lib)
    check_agreement(d2l)
    frameworks = framework_versions()

    print(
        f'machine: {cpu_model()}, {os.cpu_count()} logical cores, {memory_gib()} memory; '
        f'{platform.system()} {platform.release()}'
    )
    print(
        f'versions: Python {platform.python_version()}, torch {torch.__version__} ({torch_build()}), '
        f'NumPy {np.__version__}; {"; ".join(frameworks.values())}'
    )
    print(
        f'candidate: {args.lib or "d2l_lib.torch"}; torch intra-op threads: {torch.get_num_threads()}; '
        f'load average before: {load_average()}'
    )
    print(
        'times: median milliseconds per call; ratio: median over the rounds of candidate / baseline in the '
        f'same round (below 1: candidate faster); DotProductAttention aims at {ATTENTION_AIM}'
    )
    print(header())
    rows: list[Row] = []
    started = time.perf_counter()
    gen = torch.Generator().manual_seed(0)
    with torch.inference_mode():
        softmax_rows(d2l, args.budget, gen, rows)
        attention_rows(d2l, args.budget, gen, rows)
    with torch.no_grad():
        fused_rows(d2l, args.budget, gen, rows)
    with torch.inference_mode():
        additive_rows(d2l, ADDITIVE_BUDGET * args.budget, gen, rows)
    backward_rows(d2l, BACKWARD_BUDGET * args.budget, gen, rows)
    if frameworks.get('jax', '').startswith('jax '):
        jax_rows(args.budget, rows)
    if frameworks.get('tensorflow', '').startswith('tensorflow '):
        tensorflow_rows(args.budget, rows)
    goals = [row for row in rows if row.goal is not None]
    met = sum(row.met == 'yes' for row in goals)
    print(f'goals met: {met} of {len(goals)}' + ('' if met == len(goals) else ' -- NOT ALL GOALS MET'))
    flagged = [row for row in rows if row.met == '(!)']
    if flagged:
        print(f'(!) {len(flagged)} ratio(s) above {FRAMEWORK_LIMIT}: docs/benchmarks.md must explain them')
    print(f'load average after the table: {load_average()}; {time.perf_counter() - started:.0f} s')
    additive_memory(args.lib)
    if not args.no_scaling:
        scaling(d2l, args.budget, None if args.no_plot else args.plot, args.lib)
        print(f'load average at the end: {load_average()}; total {time.perf_counter() - started:.0f} s')


if __name__ == '__main__':
    main()
