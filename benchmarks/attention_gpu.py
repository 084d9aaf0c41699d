"""Speed and memory of d2l_lib's attention layers on a CUDA GPU (issue 27, item 5). Run by ``make bench``.

A script, not a test, like ``benchmarks/attention.py`` (whose timing, table and baselines it
uses): on a machine without a CUDA GPU it says so and measures nothing. docs/benchmarks.md
and the engineering page hold the latest table, labelled with the GPU it ran on.

What it prints, for float16, bfloat16 and float32 at the issue's three sizes:

* which kernels SDPA runs, for a direct call and inside the layer, with a boolean mask (one
  length per example) and without one: flash attention, memory-efficient attention, cuDNN
  or the unfused math path, read from the names of the CUDA kernels in PyTorch's profiler;
* under ``torch.no_grad()`` in evaluation mode: ``DotProductAttention`` whose weights are
  not read against a direct SDPA call on 4-D one-head views with the (batch, 1, 1, m) mask
  built before timing (goal 1.10, as on the CPU); the layer whose weights are read after
  every call against the layer before issue 27 read the same way (goal 1.05); and, for
  information, both without lengths (no mask: the flash kernel);
* ``AdditiveAttention``'s peak GPU memory (``torch.cuda.max_memory_allocated``) for one call
  without autograd at batch 8, n = m = 1024, h = 64, beside its bound and D2L's layer;
* JAX on the GPU: the layer under ``jax.jit``, its weights returned or unused, against
  ``jax.nn.dot_product_attention`` (XLA's implementation, the default), and that function's
  cuDNN implementation where cuDNN takes the inputs (for information).

Each call is timed from launch until the GPU has finished it: every group of calls starts
after a synchronisation and ends with one (``sync`` of ``interleaved_samples``), so a call
that waits for the GPU inside (the layer reads the shortest valid length to check it) is
charged for the wait, and one that only queues work is charged for the work.

    python benchmarks/attention_gpu.py                      # on a machine with a CUDA GPU
    python benchmarks/attention_gpu.py --device cpu --smoke  # the code paths, tiny sizes (tests)
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
import time
import traceback
from functools import partial
from pathlib import Path

# JAX takes 75% of the GPU's memory when it starts unless told not to; PyTorch shares it here.
os.environ.setdefault('XLA_PYTHON_CLIENT_PREALLOCATE', 'false')

import numpy as np  # noqa: E402
import torch  # noqa: E402
from torch import nn  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
import attention as bench  # noqa: E402

DTYPES = {'float16': torch.float16, 'bfloat16': torch.bfloat16, 'float32': torch.float32}
# Tolerance of the agreement check (the two sides sum in other orders) per dtype
TOLERANCE = {'float16': 2e-3, 'bfloat16': 2e-2, 'float32': 2e-3}
JAX_AGREEMENT = 0.1  # outputs are weighted means of N(0, 1) values: a larger difference is a bug
SMOKE_SIZES = [(2, 8, 8, 16), (2, 16, 16, 16)]
SMOKE_ADDITIVE = (2, 8, 8, 4, 4, 4, 4)
# Kinds of SDPA kernel by a word in the CUDA kernel's name, the first that matches (cuDNN's
# names also say 'flash': its attention is a flash-attention algorithm)
KERNEL_KINDS = (('cudnn', 'cuDNN'), ('flash', 'flash'), ('fmha', 'memory-efficient'), ('memeff', 'memory-efficient'))


# ---------------------------------------------------------------- set-up
def torch_sync(device: str):
    """``sync`` for ``bench.interleaved_samples``: wait for the GPU (nothing on the CPU)."""
    if device == 'cuda':
        return lambda _result: torch.cuda.synchronize()
    return None


def jax_sync(result):
    """``sync`` for ``bench.interleaved_samples`` with JAX: wait for a group's last result."""
    import jax

    return None if result is None else jax.block_until_ready(result)


def inputs(size, dtype, device, gen):
    """Queries, keys, values and one valid length per example (between 1 and m), seeded."""
    batch_size, num_queries, num_pairs, d = size
    q, k, v = (
        torch.randn(batch_size, n, d, generator=gen).to(device=device, dtype=dtype)
        for n in (num_queries, num_pairs, num_pairs)
    )
    lens = bench.lengths((batch_size,), num_pairs, gen).to(device)
    return q, k, v, lens


def kernels(fn) -> str:
    """The kinds of SDPA kernel that one call of ``fn`` runs on the GPU, from the profiler."""
    from torch.profiler import ProfilerActivity, profile

    fn()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        fn()
        torch.cuda.synchronize()
    names = {event.key for event in prof.key_averages() if event.device_type.name == 'CUDA'}
    kinds = sorted({next((kind for key, kind in KERNEL_KINDS if key in name.lower()), '') for name in names} - {''})
    return ', '.join(kinds) if kinds else f'unfused ({len(names)} kernels)'


# ---------------------------------------------------------------- PyTorch
def kernel_table(d2l, device: str, sizes) -> None:
    """Which kernels the direct SDPA call and the layer run, per dtype, with and without a mask."""
    print('\nSDPA kernels on the GPU (from the CUDA kernels in the profiler), at', sizes[0])
    print('| dtype    | lengths     | direct sdpa (4-D)            | DotProductAttention          |')
    print('|----------|-------------|------------------------------|------------------------------|')
    if device != 'cuda':
        print('| n/a (no CUDA GPU) |')
        return
    layer = d2l.DotProductAttention(dropout=0.1).eval()
    for name, dtype in DTYPES.items():
        q, k, v, lens = inputs(sizes[0], dtype, device, torch.Generator().manual_seed(1))
        q4, k4, v4 = q.unsqueeze(1), k.unsqueeze(1), v.unsqueeze(1)
        mask = bench.attention_mask(lens, k.shape[1]).unsqueeze(1)
        for lengths, direct, ours in (
            ('per example', partial(nn.functional.scaled_dot_product_attention, q4, k4, v4, attn_mask=mask),
             partial(layer, q, k, v, lens)),
            ('none', partial(nn.functional.scaled_dot_product_attention, q4, k4, v4), partial(layer, q, k, v)),
        ):  # fmt: skip
            with torch.no_grad():
                print(f'| {name:<8} | {lengths:<11} | {kernels(direct):<28} | {kernels(ours):<28} |')


def fused_rows(d2l, device: str, sizes, budget: float, rows: list) -> None:
    """The issue's comparison on the GPU, per dtype and size (see the module's docstring)."""
    sync = torch_sync(device)
    unread = d2l.DotProductAttention(dropout=0.1).eval()
    read = d2l.DotProductAttention(dropout=0.1).eval()
    before = bench.LayerBeforeIssue27(dropout=0.1).eval()
    gen = torch.Generator().manual_seed(0)
    for name, dtype in DTYPES.items():
        for size in sizes:
            q, k, v, lens = inputs(size, dtype, device, gen)
            q4, k4, v4 = q.unsqueeze(1), k.unsqueeze(1), v.unsqueeze(1)
            mask = bench.attention_mask(lens, size[2]).unsqueeze(1)  # (batch, 1, 1, pairs)
            fused = partial(nn.functional.scaled_dot_product_attention, q4, k4, v4, attn_mask=mask)
            no_mask = partial(nn.functional.scaled_dot_product_attention, q4, k4, v4)
            tolerance = TOLERANCE[name]
            torch.testing.assert_close(unread(q, k, v, lens), fused().squeeze(1), rtol=tolerance, atol=tolerance)
            pairs = [
                ('DotProductAttention, weights not read', 'sdpa (4-D), mask built before',
                 partial(unread, q, k, v, lens), fused, bench.FUSED_GOAL, 'per example'),
                ('DotProductAttention, weights read', 'the layer before issue 27, read',
                 partial(bench._call_and_read, read, q, k, v, lens),
                 partial(bench._call_and_read, before, q, k, v, lens), bench.READ_GOAL, 'per example'),
                ('DotProductAttention, weights not read', 'sdpa (4-D), no mask',
                 partial(unread, q, k, v), no_mask, None, 'none'),
            ]  # fmt: skip
            for candidate, baseline, ours, theirs, goal, lengths in pairs:
                times, _ = bench.interleaved_samples([ours, theirs], budget, 9, 301, sync)
                bench.emit(rows, bench.Row(candidate, baseline, (name, *size), lengths, times[0], times[1], goal))


def additive_memory(d2l, device: str, size) -> None:
    """Peak GPU memory of one AdditiveAttention call without autograd, the library's and D2L's."""
    batch_size, n, m, query_size, key_size, h, value_size = size
    print(
        f'\nAdditiveAttention peak GPU memory, one call without autograd, batch {batch_size}, n = {n}, m = {m}, '
        f'h = {h}, value length {value_size}, float32 (torch.cuda.max_memory_allocated above what was allocated):'
    )
    if device != 'cuda':
        print('n/a (no CUDA GPU)')
        return
    gen = torch.Generator().manual_seed(5)
    q = torch.randn(batch_size, n, query_size, generator=gen).to(device)
    k = torch.randn(batch_size, m, key_size, generator=gen).to(device)
    v = torch.randn(batch_size, m, value_size, generator=gen).to(device)
    lens = bench.lengths((batch_size,), m, gen).to(device)
    ours = d2l.AdditiveAttention(num_hiddens=h, dropout=0.0).to(device).eval()
    theirs = bench.D2LStyleAdditiveAttention(num_hiddens=h, dropout=0.0).to(device).eval()
    peaks, outputs = {}, {}
    with torch.no_grad():
        ours(q[:, :2], k, v, lens)  # sizes the lazy layers
        theirs(q[:, :2], k, v, lens)
        theirs.load_state_dict(ours.state_dict())
        for name, layer in (('AdditiveAttention', ours), ('D2LStyleAdditiveAttention', theirs)):
            torch.cuda.synchronize()
            torch.cuda.reset_peak_memory_stats()
            start = torch.cuda.memory_allocated()
            outputs[name] = layer(q, k, v, lens).float().cpu()
            torch.cuda.synchronize()
            peaks[name] = torch.cuda.max_memory_allocated() - start
    torch.testing.assert_close(outputs['AdditiveAttention'], outputs['D2LStyleAdditiveAttention'], rtol=1e-3, atol=1e-4)
    print(
        f'| AdditiveAttention peak {peaks["AdditiveAttention"] / 2**20:8.1f} MiB '
        f'| bound {bench.additive_bound(getattr(ours, "max_features", None), size)} '
        f'| D2LStyleAdditiveAttention peak {peaks["D2LStyleAdditiveAttention"] / 2**20:8.1f} MiB '
        f'| the whole (batch, n, m, h) features tensor: {batch_size * n * m * h * 4 / 2**20:.0f} MiB |'
    )


# ---------------------------------------------------------------- JAX
def jax_rows(sizes, budget: float, rows: list) -> None:
    """The JAX layer under jax.jit on JAX's default device against jax.nn.dot_product_attention."""
    import jax
    import jax.numpy as jnp

    from d2l_lib import jax as d2l_jax

    layer = d2l_jax.DotProductAttention(dropout=0.1)
    rng = np.random.default_rng(2)

    def builtin(implementation):
        def attend(q, k, v, mask):
            out = jax.nn.dot_product_attention(
                q[:, :, None], k[:, :, None], v[:, :, None], mask=mask[:, None], implementation=implementation
            )
            return out[:, :, 0]

        return jax.jit(attend)

    # On a CPU, XLA's dot_general refuses the float16 and bfloat16 products that
    # jax.nn.dot_product_attention asks for (float32 accumulation)
    names = list(DTYPES) if jax.default_backend() == 'gpu' else ['float32']
    for name in names:
        for size in sizes:
            batch_size, num_queries, num_pairs, d = size
            q, k, v = (
                jnp.asarray(rng.standard_normal((batch_size, n, d), dtype=np.float32), dtype=name)
                for n in (num_queries, num_pairs, num_pairs)
            )
            lens = jnp.asarray(rng.integers(1, num_pairs + 1, (batch_size,)))
            mask = jnp.arange(num_pairs) < lens.reshape(batch_size, -1, 1)
            params = layer.init(jax.random.key(0), q[:1, :1], k[:1], v[:1], lens[:1])
            ours = jax.jit(partial(layer.apply, params))
            ours_output = jax.jit(lambda q, k, v, lens, params=params: layer.apply(params, q, k, v, lens)[0])
            xla = builtin(None)
            # Both sides use JAX's default matmul precision (on a GPU, float32 products may
            # run in TF32); the layer's softmax runs in the inputs' dtype, the built-in's in
            # float32: show how far apart they are, refuse only what no rounding explains.
            difference = float(
                np.max(
                    np.abs(np.asarray(ours(q, k, v, lens)[0], np.float32) - np.asarray(xla(q, k, v, mask), np.float32))
                )
            )
            print(f'(jax {name} {size}: max |layer - jax.nn.dot_product_attention| = {difference:.2g})')
            if not difference < JAX_AGREEMENT:
                raise AssertionError(f'the JAX layer and the built-in differ by {difference} at {name} {size}')
            fns = [partial(ours, q, k, v, lens), partial(ours_output, q, k, v, lens), partial(xla, q, k, v, mask)]
            cudnn = builtin('cudnn')
            try:
                jax.block_until_ready(cudnn(q, k, v, mask))
            except Exception as error:  # noqa: BLE001 - cuDNN refuses some dtypes and shapes, in several ways
                cudnn = None
                print(f'(jax {name} {size}: cuDNN attention not available: {type(error).__name__})')
            else:
                fns.append(partial(cudnn, q, k, v, mask))
            times, _ = bench.interleaved_samples(fns, budget * 1.5, 9, 301, jax_sync)
            base = 'jax.nn.dot_product_attention, jit'
            cells = (name, *size)
            bench.emit(rows, bench.Row('jax DotProductAttention, jit', base, cells, 'per example', times[0], times[2],
                                       None, bench.FRAMEWORK_LIMIT))  # fmt: skip
            bench.emit(rows, bench.Row('... weights unused', base, cells, 'per example', times[1], times[2],
                                       bench.FRAMEWORK_GOAL))  # fmt: skip
            if cudnn is not None:
                bench.emit(rows, bench.Row('... implementation="cudnn"', base, cells, 'per example', times[3],
                                           times[2], None))  # fmt: skip


# ---------------------------------------------------------------- main
def describe(device: str) -> None:
    """The GPU, the versions and the JAX devices: the label of the table."""
    if device == 'cuda':
        props = torch.cuda.get_device_properties(0)
        print(
            f'GPU: {props.name}, {props.total_memory / 2**30:.1f} GiB, compute capability '
            f'{props.major}.{props.minor}, {props.multi_processor_count} multiprocessors'
        )
    else:
        print(f'device: {device} (a smoke run of the code paths, not a measurement)')
    versions = f'torch {torch.__version__} (CUDA {torch.version.cuda}, cuDNN {torch.backends.cudnn.version()})'
    try:
        import flax
        import jax

        versions += f'; jax {jax.__version__}, flax {flax.__version__}, JAX devices {jax.devices()}'
    except ImportError:
        versions += '; no JAX'
    print(f'versions: Python {sys.version.split()[0]}, {versions}, NumPy {np.__version__}')


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--device', default='cuda', choices=('cuda', 'cpu'), help='cpu: only with --smoke')
    parser.add_argument('--smoke', action='store_true', help='tiny sizes and budget: run the code paths, time nothing')
    parser.add_argument('--budget', type=float, default=2.0, help='seconds of timing per row (default 2)')
    parser.add_argument('--no-jax', action='store_true', help='leave out the JAX rows')
    parser.add_argument('--lib', default=None, help='a .py file to time instead of d2l_lib.torch')
    args = parser.parse_args(argv)
    if args.device == 'cuda' and not torch.cuda.is_available():
        print('attention_gpu: no CUDA GPU here, nothing measured (docs/benchmarks.md has the last GPU table)')
        return 0
    if args.device == 'cpu' and not args.smoke:
        parser.error('--device cpu only runs the code paths: add --smoke')
    d2l = bench.load_library(args.lib)
    sizes = SMOKE_SIZES if args.smoke else bench.ATTENTION_SIZES
    budget = 0.02 if args.smoke else args.budget
    started = time.perf_counter()
    failed = []

    def section(fn, *fn_args) -> None:
        # A section that fails prints its traceback; the others still run (one GPU session
        # gives one try), and the script then exits with status 1.
        try:
            fn(*fn_args)
        except Exception:  # noqa: BLE001 - reported, and the exit status says so
            failed.append(fn.__name__)
            traceback.print_exc()

    describe(args.device)
    print(f'candidate: {args.lib or "d2l_lib.torch"}')
    section(kernel_table, d2l, args.device, sizes)
    print(
        '\ntimes: median milliseconds per call, launch to finish; ratio: median over the rounds of candidate / '
        'baseline in the same round (below 1: candidate faster); size: (dtype, batch, queries, pairs, d)'
    )
    print(bench.header())
    rows: list[bench.Row] = []
    with torch.no_grad():
        section(fused_rows, d2l, args.device, sizes, budget, rows)
    jax_installed = all(importlib.util.find_spec(name) for name in ('jax', 'flax'))
    if not args.no_jax and not jax_installed:
        print('(no JAX rows: JAX and Flax are not both installed)')
    elif not args.no_jax:
        section(jax_rows, sizes, budget, rows)
    goals = [row for row in rows if row.goal is not None]
    met = sum(row.met == 'yes' for row in goals)
    print(f'goals met: {met} of {len(goals)}' + ('' if met == len(goals) else ' -- NOT ALL GOALS MET'))
    section(additive_memory, d2l, args.device, SMOKE_ADDITIVE if args.smoke else bench.ADDITIVE_MEMORY_SIZE)
    print(f'total {time.perf_counter() - started:.0f} s' + (f'; FAILED: {", ".join(failed)}' if failed else ''))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
