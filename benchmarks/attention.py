"""Speed of d2l_lib's attention code against named baselines. Run by ``make bench``.

This prints a table; it is not a test. Two comparisons, each at the sizes of issue 5:

* ``masked_softmax`` against ``d2l_style_masked_softmax`` below, a straightforward
  re-implementation of D2L's approach (flatten the scores to 2-D, repeat each
  example's length once per query, build a boolean mask from ``arange``, fill the
  masked scores with -1e6, softmax);
* ``DotProductAttention`` (evaluation mode, attention weights kept in
  ``attention_weights``) against ``torch.nn.functional.scaled_dot_product_attention``
  given the equivalent boolean mask, called on the same 3-D tensors
  (``sdpa_with_valid_lens``: PyTorch's unfused "math" path on CPU) and on a 4-D
  one-head view (``sdpa_one_head_with_valid_lens``: the fused flash kernel).

Each figure is the median over rounds in one process; every round times the
candidate and the baseline(s) back to back, in an order that rotates from round to
round, after a warm-up, under ``torch.inference_mode()``. Ratios are candidate /
baseline: below 1 the library is faster. docs/benchmarks.md records the results.

    python benchmarks/attention.py                 # the table in docs/benchmarks.md
    python benchmarks/attention.py --threads 1     # pin the intra-op thread count
    python benchmarks/attention.py --lib FILE.py   # time the masked_softmax and
                                                   # DotProductAttention defined in FILE
"""

from __future__ import annotations

import argparse
import importlib.util
import math
import os
import platform
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import torch
from torch import nn

MASKED_SOFTMAX_SIZES = [(2, 2, 4), (32, 128, 128), (32, 512, 512)]  # (batch, queries, keys)
ATTENTION_SIZES = [(32, 128, 128, 64), (32, 512, 512, 64), (8, 1024, 1024, 64)]  # (batch, queries, pairs, d)
SOFTMAX_GOAL = 1.0  # masked_softmax no slower than the baseline, at every size
ATTENTION_GOAL = 1.15  # DotProductAttention within 1.15x of SDPA ...
ATTENTION_GOAL_SIZES = ATTENTION_SIZES[1:]  # ... at the two large sizes


# ---------------------------------------------------------------- baselines
def d2l_style_masked_softmax(X: torch.Tensor, valid_lens: torch.Tensor) -> torch.Tensor:
    """BASELINE: D2L's masked softmax approach, written out plainly.

    The scores are viewed as a 2-D (batch * queries, keys) matrix, each example's
    length is repeated once per query, and a boolean mask from ``arange`` selects
    the keys past the length, which are filled with -1e6 before the softmax. The
    fill is out of place (``masked_fill``), so unlike D2L's own code this does not
    write into the caller's scores; it needs no input checks and does not zero the
    weights of rows whose length is 0.
    """
    batch_size, num_queries, num_keys = X.shape
    if valid_lens.dim() == 1:
        lens = torch.repeat_interleave(valid_lens, num_queries)
    else:
        lens = valid_lens.reshape(-1)
    flat = X.reshape(-1, num_keys)
    keep = torch.arange(num_keys, device=X.device)[None, :] < lens[:, None]
    flat = flat.masked_fill(~keep, -1e6)
    return nn.functional.softmax(flat.reshape(X.shape), dim=-1)


def sdpa_with_valid_lens(queries: torch.Tensor, keys: torch.Tensor, values: torch.Tensor,
                         valid_lens: torch.Tensor) -> torch.Tensor:
    """BASELINE: PyTorch's fused attention with the boolean mask equivalent to ``valid_lens``.

    The mask (True = attend) is built here, from the same 1-D or 2-D lengths the
    library receives; with one length per example it has shape (batch, 1, pairs).
    """
    num_keys = keys.shape[1]
    keep = torch.arange(num_keys, device=keys.device) < valid_lens.reshape(keys.shape[0], -1, 1)
    return nn.functional.scaled_dot_product_attention(queries, keys, values, attn_mask=keep)


def sdpa_one_head_with_valid_lens(queries: torch.Tensor, keys: torch.Tensor, values: torch.Tensor,
                                  valid_lens: torch.Tensor) -> torch.Tensor:
    """BASELINE: as ``sdpa_with_valid_lens``, with the tensors viewed as 4-D (batch, 1 head, ..., ...).

    The same computation; on CPU only 4-D inputs reach PyTorch's fused (flash) kernel,
    which never materializes the (queries x pairs) weights. 3-D inputs take the
    unfused "math" path (bmm, safe softmax, bmm).
    """
    batch_size, num_keys = keys.shape[:2]
    keep = torch.arange(num_keys, device=keys.device) < valid_lens.reshape(batch_size, 1, -1, 1)
    out = nn.functional.scaled_dot_product_attention(queries.unsqueeze(1), keys.unsqueeze(1),
                                                     values.unsqueeze(1), attn_mask=keep)
    return out.squeeze(1)


# ---------------------------------------------------------------- timing
def _time_once(fn: Callable[[], object], inner: int) -> float:
    start = time.perf_counter_ns()
    for _ in range(inner):
        fn()
    return (time.perf_counter_ns() - start) / inner / 1e6  # milliseconds per call


def interleaved_medians(fns: list[Callable[[], object]], budget_s: float, min_rounds: int,
                        max_rounds: int) -> tuple[list[float], int]:
    """Median milliseconds per call of each of ``fns``, and the number of rounds.

    Warm-up first; then every round times each function once, back to back, the
    order rotating from round to round so that none always runs first. Calls faster
    than ~2 ms are timed in groups of ``inner`` calls to rise above timer noise.
    """
    for _ in range(3):
        for fn in fns:
            fn()
    one = max(_time_once(fn, 1) for fn in fns)
    inner = max(1, min(1000, math.ceil(2.0 / max(one, 1e-4))))
    rounds = int(budget_s * 1000 / (len(fns) * inner * one + 1e-9))
    rounds = max(min_rounds, min(max_rounds, rounds)) | 1  # odd, so the median is a sample
    samples: list[list[float]] = [[] for _ in fns]
    for r in range(rounds):
        for i in range(len(fns)):
            j = (i + r) % len(fns)
            samples[j].append(_time_once(fns[j], inner))
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


def load_average() -> str:
    try:
        return ' '.join(Path('/proc/loadavg').read_text().split()[:3])
    except OSError:
        return 'n/a'


def lengths(batch_size: int, num_keys: int, generator: torch.Generator) -> torch.Tensor:
    """One valid length per example, between 1 and the number of keys, seeded."""
    return torch.randint(1, num_keys + 1, (batch_size,), generator=generator)


def check_agreement(d2l: ModuleType) -> None:
    """Refuse to time things that do not compute the same result."""
    gen = torch.Generator().manual_seed(1)
    X = torch.rand(3, 4, 7, generator=gen)
    for lens in (torch.tensor([1, 7, 3]), torch.tensor([[1, 2, 3, 4], [7, 6, 5, 4], [2, 2, 9, 1]])):
        torch.testing.assert_close(d2l.masked_softmax(X, lens), d2l_style_masked_softmax(X, lens))
    q, k, v = (torch.randn(3, n, 8, generator=gen) for n in (4, 7, 7))
    attention = d2l.DotProductAttention(dropout=0.5).eval()
    lens = torch.tensor([1, 7, 3])
    torch.testing.assert_close(attention(q, k, v, lens), sdpa_with_valid_lens(q, k, v, lens))
    torch.testing.assert_close(attention(q, k, v, lens), sdpa_one_head_with_valid_lens(q, k, v, lens))


# ---------------------------------------------------------------- main
def row(candidate: str, baseline: str, size: tuple, cand_ms: float, base_ms: float, goal: float | None,
        rounds: int) -> str:
    ratio = cand_ms / base_ms
    met = '-' if goal is None else ('yes' if ratio <= goal else 'NO')
    goal_text = '-' if goal is None else f'<= {goal:g}'
    return (f'| {candidate:<19} | {baseline:<29} | {str(size):<19} | {cand_ms:12.4f} | {base_ms:11.4f} '
            f'| {ratio:5.2f} | {goal_text:>7} | {met:>3} | {rounds:6d} |')


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--threads', type=int, default=None, help='torch intra-op threads (default: torch default)')
    parser.add_argument('--lib', default=None, help='a .py file to time instead of d2l_lib.torch')
    parser.add_argument('--budget', type=float, default=8.0, help='seconds of timing per size (default 8)')
    args = parser.parse_args(argv)
    if args.threads is not None:
        torch.set_num_threads(args.threads)
    d2l = load_library(args.lib)
    check_agreement(d2l)

    print(f'CPU: {cpu_model()}; {os.cpu_count()} logical cores; torch {torch.__version__}; '
          f'{torch.get_num_threads()} intra-op threads')
    print(f'candidate: {args.lib or "d2l_lib.torch"}; load average before: {load_average()}')
    print('times: median milliseconds per call; ratio = candidate / baseline (below 1: candidate faster)')
    header = (f'| {"candidate":<19} | {"baseline":<29} | {"size":<19} | {"candidate ms":>12} | {"baseline ms":>11} '
              f'| {"ratio":>5} | {"goal":>7} | {"met":>3} | {"rounds":>6} |')
    print(header)
    print('|' + '|'.join('-' * (len(cell)) for cell in header.split('|')[1:-1]) + '|')
    gen = torch.Generator().manual_seed(0)
    started = time.perf_counter()
    with torch.inference_mode():
        for size in MASKED_SOFTMAX_SIZES:
            X = torch.rand(size, generator=gen)
            lens = lengths(size[0], size[2], gen)
            (cand, base), rounds = interleaved_medians(
                [lambda X=X, lens=lens: d2l.masked_softmax(X, lens),
                 lambda X=X, lens=lens: d2l_style_masked_softmax(X, lens)], args.budget, 7, 301)
            print(row('masked_softmax', 'd2l_style_masked_softmax', size, cand, base, SOFTMAX_GOAL, rounds),
                  flush=True)
        attention = d2l.DotProductAttention(dropout=0.1).eval()
        for size in ATTENTION_SIZES:
            batch_size, num_queries, num_pairs, d = size
            q = torch.randn(batch_size, num_queries, d, generator=gen)
            k = torch.randn(batch_size, num_pairs, d, generator=gen)
            v = torch.randn(batch_size, num_pairs, d, generator=gen)
            lens = lengths(batch_size, num_pairs, gen)
            args_ = (q, k, v, lens)
            (cand, math_path, fused), rounds = interleaved_medians(
                [lambda a=args_: attention(*a), lambda a=args_: sdpa_with_valid_lens(*a),
                 lambda a=args_: sdpa_one_head_with_valid_lens(*a)], args.budget, 5, 301)
            goal = ATTENTION_GOAL if size in ATTENTION_GOAL_SIZES else None
            print(row('DotProductAttention', 'sdpa_with_valid_lens', size, cand, math_path, goal, rounds))
            print(row('DotProductAttention', 'sdpa_one_head_with_valid_lens', size, cand, fused, goal, rounds),
                  flush=True)
    print(f'total {time.perf_counter() - started:.0f} s; load average after: {load_average()}')


if __name__ == '__main__':
    main()
