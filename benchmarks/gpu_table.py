"""Speed and memory of d2l_lib's attention layers on a CUDA GPU (issues 27 and 37). Run by ``make bench``.

A script, not a test, like ``benchmarks.cpu_table`` (whose timing, table and baselines it
uses): on a machine without a CUDA GPU it says so and measures nothing. docs/benchmarks.md
and the engineering page hold the latest table, labelled with the GPU it ran on.

What it prints, for float16, bfloat16 and float32 at the CPU table's three sizes and at
(16, 4096, 4096, 128):

* which kernels SDPA runs, for a direct call and inside the layer, with a boolean mask (one
  length per example) and without one (``benchmarks.gpu_rows.kernel_table``);
* the issue-27 rows in evaluation mode, with the kernel column: the time of the direct
  call's own GPU work, from the profiler (``benchmarks.gpu_rows.fused_rows``);
* issue 37's training rows, forward + backward in ``train()`` mode, dropout 0 and 0.1
  (``benchmarks.rows_training``);
* the JAX rows (``benchmarks.gpu_jax``);
* ``AdditiveAttention``'s peak GPU memory for one call without autograd at batch 8,
  n = m = 1024, h = 64, beside its bound and D2L's layer.

Each call is timed from launch until the GPU has finished it: every group of calls starts
after a synchronisation and ends with one (``sync`` of ``interleaved_samples``), so a call
that waits for the GPU inside (the layer reads the shortest valid length to check it) is
charged for the wait, and one that only queues work is charged for the work.

    python -m benchmarks.gpu_table                      # on a machine with a CUDA GPU
    python -m benchmarks.gpu_table --device cpu --dry-run  # every row's code once, tiny sizes (tests)
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import os
import sys
import time
import traceback
from collections.abc import Callable
from typing import Any

# JAX takes 75% of the GPU's memory when it starts unless told not to; PyTorch shares it here.
os.environ.setdefault('XLA_PYTHON_CLIENT_PREALLOCATE', 'false')

import numpy as np  # noqa: E402
import torch  # noqa: E402

from .gpu_jax import jax_rows  # noqa: E402
from .gpu_rows import additive_memory, dtype_of, fused_rows, kernel_table, torch_sync  # noqa: E402
from .inputs import load_library  # noqa: E402
from .rows_training import training_rows  # noqa: E402
from .settings import (  # noqa: E402
    ADDITIVE_MEMORY_SIZE,
    GPU_BUDGET,
    GPU_DTYPES,
    GPU_SIZES,
    GPU_TOLERANCE,
    KERNEL_FLOOR_MS,
    SMOKE_ADDITIVE,
    SMOKE_SIZES,
)
from .table import Row, header, summary  # noqa: E402
from .timing import dry_run  # noqa: E402

NO_GPU = 'gpu_table: no CUDA GPU here, nothing measured (docs/benchmarks.md has the last GPU table)'
TRAINING_SEED = 38


def describe(device: str) -> None:
    """The GPU, the versions and the JAX devices: the label of the table."""
    if device == 'cuda':
        props = torch.cuda.get_device_properties(0)
        print(
            f'GPU: {props.name}, {props.total_memory / 2**30:.1f} GiB, compute capability '
            f'{props.major}.{props.minor}, {props.multi_processor_count} multiprocessors'
        )
    else:
        print(f'device: {device} (a dry run of the code paths, not a measurement)')
    versions = f'torch {torch.__version__} (CUDA {torch.version.cuda}, cuDNN {torch.backends.cudnn.version()})'
    try:
        import flax
        import jax

        versions += f'; jax {jax.__version__}, flax {flax.__version__}, JAX devices {jax.devices()}'
    except ImportError:
        versions += '; no JAX'
    print(f'versions: Python {sys.version.split()[0]}, {versions}, NumPy {np.__version__}')


def gpu_training_rows(
    d2l: Any, device: str, sizes: list[tuple[int, int, int, int]], budget: float, rows: list[Row]
) -> None:
    """Issue 37's training rows per dtype (``benchmarks.rows_training``), timed launch to finish."""
    for name in GPU_DTYPES:
        training_rows(d2l, sizes, budget, TRAINING_SEED, rows, device=device, dtype=dtype_of(name), label=name,
                      tolerance=GPU_TOLERANCE[name], sync=torch_sync(device), kernel=True)  # fmt: skip


def parse(argv: list[str] | None) -> argparse.Namespace:
    """The command line (see the module's docstring)."""
    parser = argparse.ArgumentParser(description=(__doc__ or '').split('\n\n')[0])
    parser.add_argument('--device', default='cuda', choices=('cuda', 'cpu'), help='cpu: only with --dry-run')
    parser.add_argument(
        '--dry-run', '--smoke', action='store_true', help="tiny sizes, every row's functions called once, nothing timed"
    )
    parser.add_argument('--budget', type=float, default=GPU_BUDGET, help=f'seconds of timing per row ({GPU_BUDGET:g})')
    parser.add_argument('--no-jax', action='store_true', help='leave out the JAX rows')
    parser.add_argument('--lib', default=None, help='a .py file to time instead of d2l_lib.torch')
    args = parser.parse_args(argv)
    if args.device == 'cpu' and not args.dry_run:
        parser.error('--device cpu only runs the code paths: add --dry-run')
    return args


def main(argv: list[str] | None = None) -> int:
    """Print the GPU table; 0 if every section ran (or there is no GPU), 1 if one failed."""
    args = parse(argv)
    if args.device == 'cuda' and not torch.cuda.is_available():
        print(NO_GPU)
        return 0
    d2l = load_library(args.lib)
    sizes = SMOKE_SIZES if args.dry_run else GPU_SIZES
    started = time.perf_counter()
    with dry_run() if args.dry_run else contextlib.nullcontext():
        failed = tables(d2l, args, sizes)
    print(f'total {time.perf_counter() - started:.0f} s' + (f'; FAILED: {", ".join(failed)}' if failed else ''))
    return 1 if failed else 0


def tables(d2l: Any, args: argparse.Namespace, sizes: list[tuple[int, int, int, int]]) -> list[str]:
    """Print the label, the kernel table, the rows and the memory; the names of the sections that failed."""
    failed: list[str] = []

    def section(fn: Callable[..., None], *fn_args: Any) -> None:
        # A section that fails prints its traceback; the others still run (one GPU session
        # gives one try), and the script then exits with status 1.
        try:
            fn(*fn_args)
        except Exception:  # noqa: BLE001 - reported, and the exit status says so
            failed.append(fn.__name__)
            traceback.print_exc()

    describe(args.device)
    print(f'candidate: {args.lib or "d2l_lib.torch"}')
    section(kernel_table, d2l, args.device, sizes[0])
    print(
        '\ntimes: median milliseconds per call, launch to finish; ratio: median over the rounds of candidate / '
        'baseline in the same round (below 1: candidate faster); size: (dtype, batch, queries, pairs, d); '
        "kernel ms: the baseline's own GPU work per call, from the profiler (the goal against the mask "
        f'built before applies where it is at least {KERNEL_FLOOR_MS} ms)'
    )
    print(header(kernel=True))
    rows: list[Row] = []
    with torch.no_grad():
        section(fused_rows, d2l, args.device, sizes, args.budget, rows)
    section(gpu_training_rows, d2l, args.device, sizes, args.budget, rows)
    jax_installed = all(importlib.util.find_spec(name) for name in ('jax', 'flax'))
    if not args.no_jax and not jax_installed:
        print('(no JAX rows: JAX and Flax are not both installed)')
    elif not args.no_jax:
        # Compiling is most of a dry run's time: one size shows the code paths
        section(jax_rows, sizes[:1] if args.dry_run else sizes, args.budget, rows)
    print(summary(rows))
    section(additive_memory, d2l, args.device, SMOKE_ADDITIVE if args.dry_run else ADDITIVE_MEMORY_SIZE)
    return failed


if __name__ == '__main__':
    sys.exit(main())
