"""Issue 37's training rows, on the CPU and on a GPU: forward + backward in ``train()`` mode.

``d2l.DotProductAttention(dropout)`` in ``train()`` mode, autograd recording (queries, keys
and values require gradients, the upstream gradient given), against forward + backward of
SDPA on 4-D one-head views (``x.unsqueeze(1)``, in the timed call) with the same boolean
mask built before timing and the same ``dropout_p``: dropout 0 and 0.1, every length >= 1
and one example of length 0 (goal 1.15). With dropout 0, outputs and gradients are checked
against each other first (on the examples of nonzero length); with dropout the two sides
draw different patterns, so nothing is compared.
"""

from __future__ import annotations

from functools import partial
from types import ModuleType

import torch

from .agreement import check_training_agreement
from .baselines import attention_mask, sdpa_fused
from .inputs import attention_inputs, forward_backward, lengths
from .settings import PER_EXAMPLE, TRAINING_DROPOUTS, TRAINING_GOAL, WITH_ZERO
from .table import Row, emit
from .timing import Sync, interleaved_samples

BASELINE = 'sdpa (4-D) fwd+bwd, mask before'


def candidate_name(dropout: float) -> str:
    """The candidate column of a training row."""
    return f'DotProductAttention train, drop {dropout:g}'


def training_rows(
    d2l: ModuleType,
    sizes: list[tuple[int, int, int, int]],
    budget: float,
    seed: int,
    rows: list[Row],
    *,
    device: str = 'cpu',
    dtype: torch.dtype = torch.float32,
    label: str | None = None,
    tolerance: float | None = None,
    sync: Sync | None = None,
    kernel: bool = False,
) -> None:
    """One row per size, kind of lengths (all >= 1, one 0) and dropout in ``TRAINING_DROPOUTS``.

    ``label``: the dtype's name, put before the size in the size column (the GPU table);
    ``tolerance``: of the agreement check (``check_training_agreement``); ``sync``: of the
    timing (a GPU); ``kernel``: print the GPU table's kernel column.
    """
    gen = torch.Generator().manual_seed(seed)
    for size in sizes:
        batch_size, num_queries, num_pairs, d = size
        q, k, v = attention_inputs(size, gen, device, dtype, requires_grad=True)
        upstream = torch.randn(batch_size, num_queries, d, generator=gen).to(device=device, dtype=dtype)
        cells = size if label is None else (label, *size)
        for kind in (PER_EXAMPLE, WITH_ZERO):
            lens = lengths((batch_size,), num_pairs, gen, zero=kind == WITH_ZERO).to(device)
            mask = attention_mask(lens, num_pairs)
            check_training_agreement(d2l, q, k, v, lens, tolerance)
            for dropout in TRAINING_DROPOUTS:
                layer = d2l.DotProductAttention(dropout).train()
                fns = [
                    forward_backward(partial(layer, valid_lens=lens), q, k, v, upstream),
                    forward_backward(partial(sdpa_fused, mask=mask, dropout_p=dropout), q, k, v, upstream),
                ]
                times, _ = interleaved_samples(fns, budget, 9, 201, sync)
                row = Row(candidate_name(dropout), BASELINE, cells, kind, times[0], times[1], TRAINING_GOAL)
                emit(rows, row, kernel)
