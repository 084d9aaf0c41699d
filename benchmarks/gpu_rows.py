"""The GPU table's PyTorch parts: which kernels SDPA runs, the issue-27 rows, AdditiveAttention's memory.

Under ``torch.no_grad()`` in evaluation mode, per dtype and size: ``DotProductAttention``
whose weights are not read against a direct SDPA call on 4-D one-head views with the
(batch, 1, 1, m) mask built before timing (goal 1.10 where that call's kernels take at
least ``KERNEL_FLOOR_MS``, their time in the kernel column), and against a direct call that
builds the mask from the lengths in the timed call (goal 1.10 everywhere); the layer whose
weights are read after every call against the layer before issue 27 read the same way
(goal 1.05); and, for information, both without lengths (no mask: the flash kernel).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from types import ModuleType

import torch
from torch import nn

from .baselines import D2LStyleAdditiveAttention, LayerBeforeIssue27, attention_mask, sdpa_mask_inside
from .inputs import attention_inputs, lengths
from .memory import additive_bound
from .rows_issue27 import call_and_read
from .settings import FUSED_GOAL, GPU_DTYPES, GPU_TOLERANCE, KERNEL_FLOOR_MS, PER_EXAMPLE, READ_GOAL
from .table import Row, emit
from .timing import Sync, interleaved_samples

# Kinds of SDPA kernel by a word in the CUDA kernel's name, the first that matches (cuDNN's
# names also say 'flash': its attention is a flash-attention algorithm)
KERNEL_KINDS = (('cudnn', 'cuDNN'), ('flash', 'flash'), ('fmha', 'memory-efficient'), ('memeff', 'memory-efficient'))
PROFILED_CALLS = 10  # kernel_ms: the mean over this many profiled calls


def torch_sync(device: str) -> Sync | None:
    """``sync`` for ``interleaved_samples``: wait for the GPU (nothing on the CPU)."""
    if device == 'cuda':
        return lambda _result: torch.cuda.synchronize()
    return None


def dtype_of(name: str) -> torch.dtype:
    """The torch dtype of a name of ``GPU_DTYPES``."""
    dtype = getattr(torch, name)
    assert isinstance(dtype, torch.dtype), name
    return dtype


def _cuda_events(fn: Callable[[], object], calls: int = 1) -> list:
    """The profiler's averages of the CUDA events of ``calls`` calls of ``fn`` (after one unprofiled call)."""
    from torch.profiler import ProfilerActivity, profile

    fn()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(calls):
            fn()
        torch.cuda.synchronize()
    return [event for event in prof.key_averages() if event.device_type.name == 'CUDA']


def kernels(fn: Callable[[], object]) -> str:
    """The kinds of SDPA kernel that one call of ``fn`` runs on the GPU, from the profiler."""
    names = {event.key for event in _cuda_events(fn)}
    kinds = sorted({next((kind for key, kind in KERNEL_KINDS if key in name.lower()), '') for name in names} - {''})
    return ', '.join(kinds) if kinds else f'unfused ({len(names)} kernels)'


def kernel_ms(fn: Callable[[], object], device: str) -> float | None:
    """Milliseconds of GPU work (kernels, copies) of one call of ``fn`` from the profiler; None off a GPU."""
    if device != 'cuda':
        return None
    events = _cuda_events(fn, PROFILED_CALLS)
    # device_time_total since torch 2.4; cuda_time_total before
    total_us = sum(
        getattr(event, 'device_time_total', None) or getattr(event, 'cuda_time_total', 0) for event in events
    )
    return total_us / PROFILED_CALLS / 1000


def kernel_table(d2l: ModuleType, device: str, size: tuple[int, int, int, int]) -> None:
    """Which kernels the direct SDPA call and the layer run, per dtype, with and without a mask."""
    print('\nSDPA kernels on the GPU (from the CUDA kernels in the profiler), at', size)
    print('| dtype    | lengths     | direct sdpa (4-D)            | DotProductAttention          |')
    print('|----------|-------------|------------------------------|------------------------------|')
    if device != 'cuda':
        print('| n/a (no CUDA GPU) |')
        return
    layer = d2l.DotProductAttention(dropout=0.1).eval()
    for name in GPU_DTYPES:
        gen = torch.Generator().manual_seed(1)
        q, k, v = attention_inputs(size, gen, device, dtype_of(name))
        lens = lengths((size[0],), size[2], gen).to(device)
        q4, k4, v4 = q.unsqueeze(1), k.unsqueeze(1), v.unsqueeze(1)
        mask = attention_mask(lens, k.shape[1]).unsqueeze(1)
        for kind, direct, ours in (
            ('per example', partial(nn.functional.scaled_dot_product_attention, q4, k4, v4, attn_mask=mask),
             partial(layer, q, k, v, lens)),
            ('none', partial(nn.functional.scaled_dot_product_attention, q4, k4, v4), partial(layer, q, k, v)),
        ):  # fmt: skip
            with torch.no_grad():
                print(f'| {name:<8} | {kind:<11} | {kernels(direct):<28} | {kernels(ours):<28} |')


def fused_rows(
    d2l: ModuleType, device: str, sizes: list[tuple[int, int, int, int]], budget: float, rows: list[Row]
) -> None:
    """The issue-27 comparisons on the GPU, per dtype and size (see the module's docstring)."""
    sync = torch_sync(device)
    unread = d2l.DotProductAttention(dropout=0.1).eval()
    read = d2l.DotProductAttention(dropout=0.1).eval()
    before = LayerBeforeIssue27(dropout=0.1).eval()
    gen = torch.Generator().manual_seed(0)
    for name in GPU_DTYPES:
        for size in sizes:
            q, k, v = attention_inputs(size, gen, device, dtype_of(name))
            lens = lengths((size[0],), size[2], gen).to(device)
            q4, k4, v4 = q.unsqueeze(1), k.unsqueeze(1), v.unsqueeze(1)
            mask = attention_mask(lens, size[2]).unsqueeze(1)  # (batch, 1, 1, pairs)
            fused = partial(nn.functional.scaled_dot_product_attention, q4, k4, v4, attn_mask=mask)
            inside = partial(sdpa_mask_inside, q4, k4, v4, lens)
            no_mask = partial(nn.functional.scaled_dot_product_attention, q4, k4, v4)
            tolerance = GPU_TOLERANCE[name]
            for baseline in (fused, inside):
                torch.testing.assert_close(unread(q, k, v, lens), baseline().squeeze(1), rtol=tolerance, atol=tolerance)
            kernel = kernel_ms(fused, device)
            prebuilt_goal = FUSED_GOAL if kernel is None or kernel >= KERNEL_FLOOR_MS else None
            comparisons = [
                ('DotProductAttention, weights not read', 'sdpa (4-D), mask built before',
                 partial(unread, q, k, v, lens), fused, prebuilt_goal, PER_EXAMPLE, kernel),
                ('DotProductAttention, weights not read', 'sdpa (4-D), mask built inside',
                 partial(unread, q, k, v, lens), inside, FUSED_GOAL, PER_EXAMPLE, None),
                ('DotProductAttention, weights read', 'the layer before issue 27, read',
                 partial(call_and_read, read, q, k, v, lens),
                 partial(call_and_read, before, q, k, v, lens), READ_GOAL, PER_EXAMPLE, None),
                ('DotProductAttention, weights not read', 'sdpa (4-D), no mask',
                 partial(unread, q, k, v), no_mask, None, 'none', None),
            ]  # fmt: skip
            for candidate, baseline, ours, theirs, goal, kind, ms in comparisons:
                times, _ = interleaved_samples([ours, theirs], budget, 9, 301, sync)
                row = Row(candidate, baseline, (name, *size), kind, times[0], times[1], goal, kernel_ms=ms)
                emit(rows, row, kernel=True)


def additive_memory(d2l: ModuleType, device: str, size: tuple[int, ...]) -> None:
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
    lens = lengths((batch_size,), m, gen).to(device)
    ours = d2l.AdditiveAttention(num_hiddens=h, dropout=0.0).to(device).eval()
    theirs = D2LStyleAdditiveAttention(num_hiddens=h, dropout=0.0).to(device).eval()
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
        f'| bound {additive_bound(getattr(ours, "max_features", None), size)} '
        f'| D2LStyleAdditiveAttention peak {peaks["D2LStyleAdditiveAttention"] / 2**20:8.1f} MiB '
        f'| the whole (batch, n, m, h) features tensor: {batch_size * n * m * h * 4 / 2**20:.0f} MiB |'
    )
