"""Speed and memory of d2l_lib's attention code on the CPU against named baselines. Run by ``make bench``.

This is a script, not a test: it prints one table and nothing fails on a slow machine.
docs/benchmarks.md records the latest table and explains it (issues 12, 27 and 37). The rows,
in the order printed (each module's docstring says what its rows compare):

* ``benchmarks.rows_torch``: masked softmax, ``DotProductAttention`` against SDPA (3-D),
  under ``torch.inference_mode()``;
* ``benchmarks.rows_issue27``: the layer, weights not read, against SDPA's fused kernel
  (every length >= 1, then one example of length 0), weights read against the layer before
  issue 27, under ``torch.no_grad()``;
* ``benchmarks.rows_torch``: ``AdditiveAttention`` against D2L's, then forward + backward in
  evaluation mode against SDPA's;
* ``benchmarks.rows_training``: forward + backward in ``train()`` mode, dropout 0 and 0.1;
* ``benchmarks.rows_frameworks``: JAX and TensorFlow, when their layers exist.

Then AdditiveAttention's peak memory and how cost grows with the sequence length
(``benchmarks.memory``, ``benchmarks.scaling``). Timing: ``benchmarks.timing``; every row's
rounds fill ``--budget`` seconds, 2.5 times as long for the backward, training and
AdditiveAttention rows.

    python -m benchmarks.cpu_table                 # the table of docs/benchmarks.md
    python -m benchmarks.cpu_table --threads 1     # pin the intra-op thread count
    python -m benchmarks.cpu_table --lib FILE.py   # time the library code in FILE instead
    python -m benchmarks.cpu_table --dry-run --no-scaling   # every row's code once (a check, no times)
"""

from __future__ import annotations

import argparse
import contextlib
import os
import platform
import time
from pathlib import Path
from types import ModuleType

import numpy as np
import torch

from . import machine
from .agreement import check_agreement
from .inputs import load_library
from .memory import additive_memory
from .rows_frameworks import jax_rows, tensorflow_rows
from .rows_issue27 import fused_rows, zero_length_rows
from .rows_torch import additive_rows, attention_rows, backward_rows, softmax_rows
from .rows_training import training_rows
from .scaling import scaling
from .settings import (
    ADDITIVE_BUDGET,
    ATTENTION_AIM,
    ATTENTION_SIZES,
    BACKWARD_BUDGET,
    BUDGET,
    PER_EXAMPLE,
    PER_QUERY,
    PLOT,
    WITH_ZERO,
)
from .table import Row, header, summary
from .timing import dry_run

# Seeds of the rows added by issue 37, so that the rows before them keep their inputs
ZERO_LENGTH_SEED, TRAINING_SEED = 37, 38


def parse(argv: list[str] | None) -> argparse.Namespace:
    """The command line (see the module's docstring)."""
    parser = argparse.ArgumentParser(description=(__doc__ or '').split('\n\n')[0])
    parser.add_argument('--threads', type=int, default=None, help='torch intra-op threads (default: torch default)')
    parser.add_argument('--lib', default=None, help='a .py file to time instead of d2l_lib.torch')
    parser.add_argument('--budget', type=float, default=BUDGET, help=f'seconds of timing per row (default {BUDGET:g})')
    parser.add_argument('--plot', type=Path, default=PLOT, help=f'where to draw the scaling plot (default {PLOT})')
    parser.add_argument('--no-plot', action='store_true', help='do not draw the plot')
    parser.add_argument('--no-scaling', action='store_true', help='skip the scaling measurements')
    parser.add_argument('--dry-run', action='store_true', help="every row's functions called once, nothing timed")
    return parser.parse_args(argv)


def print_label(lib: str | None, frameworks: dict[str, str]) -> None:
    """The lines above the table: the machine, the versions, the candidate, how to read it."""
    print(
        f'machine: {machine.cpu_model()}, {os.cpu_count()} logical cores, {machine.memory_gib()} memory; '
        f'{platform.system()} {platform.release()}'
    )
    print(
        f'versions: Python {platform.python_version()}, torch {torch.__version__} ({machine.torch_build()}), '
        f'NumPy {np.__version__}; {"; ".join(frameworks.values())}'
    )
    print(
        f'candidate: {lib or "d2l_lib.torch"}; torch intra-op threads: {torch.get_num_threads()}; '
        f'load average before: {machine.load_average()}'
    )
    print(
        'times: median milliseconds per call; ratio: median over the rounds of candidate / baseline in the '
        f'same round (below 1: candidate faster); DotProductAttention aims at {ATTENTION_AIM}'
    )
    print(
        f'lengths: {PER_EXAMPLE} (one per example, every one >= 1), {PER_QUERY} (one per query, >= 1), '
        f'{WITH_ZERO} (one per example, one of them 0)'
    )


def main(argv: list[str] | None = None) -> None:
    """Print the CPU table, AdditiveAttention's peak memory and (unless told not to) the scaling sweep."""
    args = parse(argv)
    if args.threads is not None:
        torch.set_num_threads(args.threads)
    d2l = load_library(args.lib)
    check_agreement(d2l)
    frameworks = machine.framework_versions()
    print_label(args.lib, frameworks)
    print(header())
    started = time.perf_counter()
    with dry_run() if args.dry_run else contextlib.nullcontext():
        rows = table_rows(d2l, args.budget, frameworks)
    print(summary(rows))
    print(f'load average after the table: {machine.load_average()}; {time.perf_counter() - started:.0f} s')
    additive_memory(args.lib)
    if not args.no_scaling:
        with dry_run() if args.dry_run else contextlib.nullcontext():
            scaling(d2l, args.budget, None if args.no_plot or args.dry_run else args.plot, args.lib)
        print(f'load average at the end: {machine.load_average()}; total {time.perf_counter() - started:.0f} s')


def table_rows(d2l: ModuleType, budget: float, frameworks: dict[str, str]) -> list[Row]:
    """Time and print every row of the table, in order (see the module's docstring)."""
    rows: list[Row] = []
    gen = torch.Generator().manual_seed(0)
    with torch.inference_mode():
        softmax_rows(d2l, budget, gen, rows)
        attention_rows(d2l, budget, gen, rows)
    with torch.no_grad():
        fused_rows(d2l, budget, gen, rows)
        zero_length_rows(d2l, budget, ZERO_LENGTH_SEED, rows)
    with torch.inference_mode():
        additive_rows(d2l, ADDITIVE_BUDGET * budget, gen, rows)
    backward_rows(d2l, BACKWARD_BUDGET * budget, gen, rows)
    training_rows(d2l, ATTENTION_SIZES, BACKWARD_BUDGET * budget, TRAINING_SEED, rows)
    if frameworks.get('jax', '').startswith('jax '):
        jax_rows(budget, rows)
    if frameworks.get('tensorflow', '').startswith('tensorflow '):
        tensorflow_rows(budget, rows)
    return rows


if __name__ == '__main__':
    main()
