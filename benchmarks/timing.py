"""Timing: interleaved rounds of the functions compared, their medians.

One process; after a warm-up, every round times the candidate and its baseline(s) back to
back in an order that rotates from round to round; calls shorter than about 2 ms are timed
in groups. The table (``benchmarks.table``) shows the median time per call over the rounds
and the median over the rounds of candidate time / baseline time in the same round, which
cancels most changes of the machine's load between rounds.
"""

from __future__ import annotations

import math
import statistics
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

Sync = Callable[[object], object]
"""Called with ``None`` before a group of calls and with its last result after it (an accelerator's wait)."""


_dry_run = False


@contextmanager
def dry_run() -> Iterator[None]:
    """Within it, ``interleaved_samples`` calls each function once, times that call and returns it
    as the only round: every row's code runs, nothing is measured (the GPU table's dry run)."""
    global _dry_run
    before, _dry_run = _dry_run, True
    try:
        yield
    finally:
        _dry_run = before


class Timed:
    """A function to time. With ``prepare``, each call gets ``fn(prepare())``; the
    preparation (e.g. a fresh copy of an input) happens before the timer starts."""

    def __init__(self, fn: Callable[..., Any], prepare: Callable[[], object] | None = None):
        self.fn, self.prepare = fn, prepare


def time_group(timed: Timed, inner: int, sync: Sync | None = None) -> float:
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
    fns: list[Callable[[], object] | Timed],
    budget_s: float,
    min_rounds: int,
    max_rounds: int,
    sync: Sync | None = None,
) -> tuple[list[list[float]], int]:
    """Milliseconds per call of each of ``fns`` (callables or ``Timed``) in every round, and the rounds.

    Warm-up first; then every round times each function once, back to back, the order
    rotating from round to round so that none always runs first. Calls faster than
    about 2 ms are timed in groups of ``inner`` calls, to rise above timer noise. The rounds
    fill ``budget_s`` seconds, at least ``min_rounds`` and at most ``max_rounds`` of them, an
    odd number. ``sync``: see ``time_group`` (a GPU's calls are timed from launch until they finish).
    Inside ``dry_run()``: one call each, one round.
    """
    timed = [f if isinstance(f, Timed) else Timed(f) for f in fns]
    if _dry_run:
        return [[time_group(t, 1, sync)] for t in timed], 1
    for _ in range(2):
        for t in timed:
            time_group(t, 1, sync)
    # The slowest function's time per call, as the median of 5 calls: robust to one stalled call.
    one = max(statistics.median(time_group(t, 1, sync) for _ in range(5)) for t in timed)
    inner = max(1, min(1000, math.ceil(2.0 / max(one, 1e-4))))
    rounds = int(budget_s * 1000 / (len(timed) * inner * one + 1e-9))
    rounds = max(min_rounds, min(max_rounds, rounds)) | 1  # odd, so the median is a sample
    samples: list[list[float]] = [[] for _ in timed]
    for r in range(rounds):
        for i in range(len(timed)):
            j = (i + r) % len(timed)
            samples[j].append(time_group(timed[j], inner, sync))
    return samples, rounds


def interleaved_medians(
    fns: list[Callable[[], object] | Timed], budget_s: float, min_rounds: int, max_rounds: int
) -> tuple[list[float], int]:
    """Median milliseconds per call of each of ``fns`` (see ``interleaved_samples``), and the rounds."""
    samples, rounds = interleaved_samples(fns, budget_s, min_rounds, max_rounds)
    return [statistics.median(s) for s in samples], rounds
