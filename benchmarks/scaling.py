"""How cost grows: time and peak memory of ``DotProductAttention`` and SDPA's fused kernel for one
sequence attending to itself, n = 512 ... 8192, d = 64; also drawn into docs/attention-scaling.png."""

from __future__ import annotations

from functools import partial
from pathlib import Path
from types import ModuleType

import numpy as np
import torch

from .baselines import sdpa_fused
from .memory import scaling_memory
from .settings import ROOT, SCALING_D, SCALING_LENGTHS
from .timing import interleaved_medians

Times = dict[int, list[float]]
Memory = dict[int, list[int]] | str


def scaling(d2l: ModuleType, budget: float, plot: Path | None, lib: str | None) -> None:
    """Time both at every length, measure their memory in a child, print the table and the
    growth exponents, and draw the plot into ``plot`` (None: no plot)."""
    attention = d2l.DotProductAttention(dropout=0.0).eval()
    times: Times = {}
    with torch.inference_mode():
        gen = torch.Generator().manual_seed(4)
        for n in SCALING_LENGTHS:
            q, k, v = (torch.randn(1, n, SCALING_D, generator=gen) for _ in range(3))
            times[n], _ = interleaved_medians(
                [partial(attention, q, k, v), partial(sdpa_fused, q, k, v)], budget, 3, 51
            )
            attention.attention_weights = None
    memory = scaling_memory(lib)
    print()
    print(
        f'How cost grows: one sequence of n tokens attending to itself, batch 1, d = {SCALING_D}, no mask; '
        'peak = growth of peak resident memory during one call (see benchmarks/memory.py)'
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


def draw(times: Times, memory: Memory, path: Path) -> None:
    """Time and peak memory against n, log-log, beside the n^2 weights and the output."""
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
