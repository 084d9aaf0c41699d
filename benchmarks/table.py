"""The printed table: its columns, one row per comparison, the line that counts the goals met."""

from __future__ import annotations

import statistics

from .settings import FRAMEWORK_LIMIT

COLUMNS = [
    ('candidate', 35),
    ('baseline', 34),
    ('size', 32),
    ('lengths', 11),
    ('candidate ms', 12),
    ('baseline ms', 11),
    ('ratio', 5),
    ('goal', 7),
    ('met', 3),
    ('rounds', 6),
]
"""(name, width) of each column; the first four are text, left-aligned; the others numbers."""
KERNEL_COLUMN = ('kernel ms', 9)
"""The GPU table's extra column: the time of the baseline's kernels alone, from the profiler."""


def _line(cells: list[str], columns: list[tuple[str, int]]) -> str:
    return (
        '| '
        + ' | '.join(f'{c:<{w}}' if i < 4 else f'{c:>{w}}' for i, (c, (_, w)) in enumerate(zip(cells, columns)))
        + ' |'
    )


def columns(kernel: bool = False) -> list[tuple[str, int]]:
    """The table's columns; with ``kernel``, the GPU table's, which add ``KERNEL_COLUMN``."""
    return [*COLUMNS, KERNEL_COLUMN] if kernel else COLUMNS


def header(kernel: bool = False) -> str:
    """The table's two header lines (names, then the markdown rule)."""
    chosen = columns(kernel)
    names = _line([name for name, _ in chosen], chosen)
    return names + '\n|' + '|'.join('-' * (width + 2) for _, width in chosen) + '|'


class Row:
    """One line of the table, from the times of the candidate and the baseline in the same rounds.

    The times shown are medians; the ratio is the median over the rounds of the candidate's
    time divided by the baseline's in the same round, which cancels most of the changes in
    the machine's load from round to round. ``limit``: no goal, but a larger ratio needs an
    explanation. ``kernel_ms``: the baseline's kernel time alone (GPU table), if measured.
    """

    def __init__(
        self,
        candidate: str,
        baseline: str,
        size: tuple[object, ...],
        lengths: str,
        cand: list[float],
        base: list[float],
        goal: float | None,
        limit: float | None = None,
        kernel_ms: float | None = None,
    ):
        self.candidate, self.baseline, self.size, self.lengths = candidate, baseline, size, lengths
        self.cand_ms, self.base_ms = statistics.median(cand), statistics.median(base)
        self.ratio = statistics.median(c / b for c, b in zip(cand, base))
        self.goal, self.rounds, self.limit, self.kernel_ms = goal, len(cand), limit, kernel_ms

    @property
    def met(self) -> str:
        """``yes`` or ``NO`` against the goal; without one, ``(!)`` above the limit, else ``-``."""
        if self.goal is not None:
            return 'yes' if self.ratio <= self.goal else 'NO'
        if self.limit is not None and self.ratio > self.limit:
            return '(!)'
        return '-'

    def line(self, kernel: bool = False) -> str:
        """The row as a line of the table; with ``kernel``, of the GPU table."""
        cells = [
            self.candidate,
            self.baseline,
            str(self.size),
            self.lengths,
            f'{self.cand_ms:.4f}',
            f'{self.base_ms:.4f}',
            f'{self.ratio:.2f}',
            f'<= {self.goal:g}' if self.goal is not None else '-',
            self.met,
            str(self.rounds),
        ]
        if kernel:
            cells.append('-' if self.kernel_ms is None else f'{self.kernel_ms:.4f}')
        return _line(cells, columns(kernel))

    def __str__(self) -> str:
        return self.line()


def emit(rows: list[Row], row: Row, kernel: bool = False) -> None:
    """Keep ``row`` and print it at once (a long run shows its progress)."""
    rows.append(row)
    print(row.line(kernel), flush=True)


def summary(rows: list[Row]) -> str:
    """How many goals the rows met, and how many ratios without a goal need an explanation."""
    goals = [row for row in rows if row.goal is not None]
    met = sum(row.met == 'yes' for row in goals)
    text = f'goals met: {met} of {len(goals)}' + ('' if met == len(goals) else ' -- NOT ALL GOALS MET')
    flagged = [row for row in rows if row.met == '(!)']
    if flagged:
        text += f'\n(!) {len(flagged)} ratio(s) above {FRAMEWORK_LIMIT}: docs/benchmarks.md must explain them'
    return text
