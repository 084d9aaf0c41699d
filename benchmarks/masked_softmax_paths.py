"""The two paths of PyTorch's ``_masked_softmax``, and the fills they use. Run by ``make bench``.

``d2l_lib.torch._masked_softmax(X, valid_lens, overwrite=True)``, which the attention layers
call on scores that no caller sees, takes one of two paths, picked by the number of scores:

* the small path fills the padding with ``masked_fill_`` and then zeroes the padding's
  weights without looking;
* the large path fills with ``torch.where(..., out=X)`` and looks at the weights of the last
  key (padding in every row that has padding) before it zeroes anything: the zeroing pass
  runs only if some row (of length 0, or whose valid scores are all -inf or hold NaN) needs it.

This script times, on one thread and without gradients, first the three fills (``masked_fill_``,
``torch.where`` into ``X``, ``torch.where`` into a new tensor, as ``masked_softmax`` does), then
the two whole paths, input checks and softmax included, at six sizes from 2^10 to 2^23 scores.
Each time is the fastest of 20 runs that take turns. docs/benchmarks.md records a run and what
it showed; the library switches paths at ``SWITCH`` scores.

    python -m benchmarks.masked_softmax_paths
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable

import torch

from d2l_lib import torch as d2l

SWITCH = 2**14  # the library takes the large path from this many scores on
SHAPES = ((4, 16, 16), (8, 32, 32), (16, 32, 32), (16, 64, 64), (16, 256, 256), (32, 512, 512))
REPEATS = 20


def fastest(operations: list[Callable[[], object]], repeats: int = REPEATS) -> list[float]:
    """Fastest time of each operation in seconds; the operations take turns."""
    times: list[list[float]] = [[] for _ in operations]
    for _ in range(repeats):
        for operation, record in zip(operations, times):
            start = time.perf_counter()
            operation()
            record.append(time.perf_counter() - start)
    return [min(record) for record in times]


def masked_softmax_path(X: torch.Tensor, valid_lens: torch.Tensor, small: bool) -> torch.Tensor:
    """What ``_masked_softmax(X, valid_lens, overwrite=True)`` does without gradients,
    on the path that ``small`` names rather than the one the size of ``X`` picks."""
    lens = d2l._valid_lens_per_query(X, valid_lens)
    padding = torch.arange(X.shape[-1]) >= lens
    lowest = torch.finfo(X.dtype).min
    if small:
        X.masked_fill_(padding, lowest)
    else:
        torch.where(padding, X.new_full((), lowest), X, out=X)
    weights = torch.softmax(X, dim=-1, out=X)
    # The small path zeroes without looking; the large one looks first
    if small or ((weights[..., -1:] != 0) & padding[..., -1:]).any():
        weights.masked_fill_(padding, 0.0)
    return weights


def fill_and_path_times(shape: tuple[int, int, int]) -> tuple[list[float], list[float]]:
    """Times of the three fills and of the two paths on scores of ``shape``."""
    X = torch.randn(shape)
    lens = torch.randint(1, shape[-1] + 1, (shape[0],))
    padding = torch.arange(shape[-1]) >= lens.reshape(-1, 1, 1)
    lowest = torch.finfo(X.dtype).min
    fills = fastest(
        [
            lambda: X.masked_fill_(padding, lowest),
            # As in the library, the fill value becomes a tensor every call
            lambda: torch.where(padding, X.new_full((), lowest), X, out=X),
            lambda: torch.where(padding, lowest, X),
        ]
    )
    paths = fastest(
        [
            lambda: masked_softmax_path(X, lens, small=True),
            lambda: masked_softmax_path(X, lens, small=False),
        ]
    )
    return fills, paths


def main() -> None:
    torch.manual_seed(0)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # one thread is less disturbed by other work
    try:
        with torch.no_grad():
            results = [fill_and_path_times(shape) for shape in SHAPES]
    finally:
        torch.set_num_threads(threads)
    print(f'masked_softmax paths: torch {torch.__version__}, 1 thread, fastest of {REPEATS} runs')
    print('the fill: time of masked_fill_, and of torch.where as a multiple of it')
    print('  scores  masked_fill_  where, out=X  where, new tensor')
    for shape, ((in_place, into_x, new), _) in zip(SHAPES, results):
        print(f'{math.prod(shape):8d}  {1e6 * in_place:9.1f} µs  {into_x / in_place:12.2f}  {new / in_place:17.2f}')
    print('\nthe whole masked softmax: time of the small path, and of the large')
    print(f'path as a multiple of it (the library takes the large one from {SWITCH})')
    print('  scores  small path  large path')
    for shape, (_, (small, large)) in zip(SHAPES, results):
        print(f'{math.prod(shape):8d}  {1e6 * small:7.1f} µs  {large / small:10.2f}')


if __name__ == '__main__':
    main()
