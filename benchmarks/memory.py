"""Peak memory of one call, measured in a child process: the scaling sweep's and AdditiveAttention's.

Peak memory is the growth of the process's peak resident memory (Linux VmHWM, reset through
/proc/self/clear_refs) during one call, measured in a child process in which glibc maps every
allocation of 16 KiB or more afresh and unmaps it when it is freed (MALLOC_MMAP_THRESHOLD_),
so that memory reused from earlier calls cannot hide an allocation. (tracemalloc does not see
PyTorch's allocations.)

    python -m benchmarks.memory scaling [--lib FILE.py]    # the child: prints JSON
    python -m benchmarks.memory additive [--lib FILE.py]
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import subprocess
import sys
from functools import partial
from pathlib import Path
from typing import Any

import torch

from .baselines import sdpa_fused
from .inputs import lengths, load_library
from .settings import ADDITIVE_MEMORY_SIZE, ROOT, SCALING_D, SCALING_LENGTHS

CLEAR_REFS = Path('/proc/self/clear_refs')
UNAVAILABLE = 'not measured (needs Linux /proc/self/clear_refs)'


def _proc_status(key: str) -> int:
    for line in Path('/proc/self/status').read_text().splitlines():
        if line.startswith(key):
            return int(line.split()[1]) * 1024
    raise KeyError(key)


def _peak_of(fn: Any) -> tuple[int, Any]:
    """The growth of peak resident memory during ``fn()``, and its result."""
    gc.collect()
    CLEAR_REFS.write_text('5')  # reset the peak (VmHWM) to the current RSS
    before = _proc_status('VmRSS:')
    out = fn()
    return _proc_status('VmHWM:') - before, out


def scaling_child(lib: str | None) -> dict[int, list[int]]:
    """The peak memory of one call of the layer and of SDPA's fused kernel at each scaling length."""
    d2l = load_library(lib)
    attention = d2l.DotProductAttention(dropout=0.0).eval()
    peaks: dict[int, list[int]] = {}
    with torch.inference_mode():
        small = torch.randn(1, 16, SCALING_D)
        attention(small, small, small)  # load and initialize the kernels first
        sdpa_fused(small, small, small)
        for n in SCALING_LENGTHS:
            q, k, v = (torch.randn(1, n, SCALING_D) for _ in range(3))
            peaks[n] = []
            for fn in (partial(attention, q, k, v), partial(sdpa_fused, q, k, v)):
                peak, out = _peak_of(fn)
                peaks[n].append(peak)
                del out
                attention.attention_weights = None
    return peaks


def additive_child(lib: str | None) -> dict[str, int | None]:
    """The peak memory of one AdditiveAttention call at ADDITIVE_MEMORY_SIZE without autograd."""
    d2l = load_library(lib)
    batch_size, num_queries, num_pairs, query_size, key_size, num_hiddens, value_size = ADDITIVE_MEMORY_SIZE
    layer = d2l.AdditiveAttention(num_hiddens=num_hiddens, dropout=0.0).eval()
    with torch.no_grad():
        small = [torch.randn(2, 3, n) for n in (query_size, key_size, value_size)]
        layer(*small)  # sizes the lazy layers, loads the kernels
        q = torch.randn(batch_size, num_queries, query_size)
        k = torch.randn(batch_size, num_pairs, key_size)
        v = torch.randn(batch_size, num_pairs, value_size)
        lens = lengths((batch_size,), num_pairs, torch.default_generator)
        peak, out = _peak_of(partial(layer, q, k, v, lens))
        del out
    return {'peak': peak, 'max_features': getattr(layer, 'max_features', None)}


def run_child(kind: str, lib: str | None) -> Any:
    """The JSON a child (``scaling`` or ``additive``) prints, or why there is none (a string)."""
    if not CLEAR_REFS.exists():
        return UNAVAILABLE
    env = dict(os.environ, MALLOC_MMAP_THRESHOLD_=str(16 * 1024))
    command = [sys.executable, '-m', 'benchmarks.memory', kind]
    if lib:
        command += ['--lib', str(Path(lib).resolve())]
    result = subprocess.run(command, capture_output=True, text=True, env=env, timeout=900, cwd=ROOT)
    if result.returncode != 0:
        return f'not measured (child failed: {result.stderr.strip().splitlines()[-1:]})'
    return json.loads(result.stdout.strip().splitlines()[-1])


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
        f'h = {h}, value length {v}, float32 (growth of peak resident memory, see benchmarks/memory.py):'
    )
    found = run_child('additive', lib)
    if isinstance(found, str):
        print(found)
        return
    print(
        f'| peak {found["peak"] / 2**20:8.1f} MiB | bound {additive_bound(found["max_features"])} | '
        f'the whole (batch, n, m, h) features tensor: {whole / 2**20:.0f} MiB |'
    )


def scaling_memory(lib: str | None) -> dict[int, list[int]] | str:
    """Peak memory per scaling length and implementation, from a child process; or why there is none."""
    found = run_child('scaling', lib)
    return found if isinstance(found, str) else {int(n): peaks for n, peaks in found.items()}


def main(argv: list[str] | None = None) -> None:
    """The child's command line: measure one kind and print it as JSON."""
    parser = argparse.ArgumentParser(description='Peak memory of one call (a child of benchmarks.cpu_table).')
    parser.add_argument('kind', choices=('scaling', 'additive'))
    parser.add_argument('--lib', default=None, help='a .py file to measure instead of d2l_lib.torch')
    args = parser.parse_args(argv)
    print(json.dumps(scaling_child(args.lib) if args.kind == 'scaling' else additive_child(args.lib)))


if __name__ == '__main__':
    main()
