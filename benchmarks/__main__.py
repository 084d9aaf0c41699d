"""``make bench``: the CPU table, the GPU table and the masked softmax's paths, one process each.

Each part runs in a process of its own, as separate commands would, so that one part's
threads, caches and imported frameworks do not change another's times. Each part has its
own options (``python -m benchmarks.cpu_table --help``, ``python -m benchmarks.gpu_table --help``).

    python -m benchmarks
"""

from __future__ import annotations

import subprocess
import sys

from .settings import ROOT

PARTS = ('benchmarks.cpu_table', 'benchmarks.gpu_table', 'benchmarks.masked_softmax_paths')


def main() -> int:
    """Run every part in order; the exit status is the first nonzero one of a part, else 0."""
    status = 0
    for part in PARTS:
        print(f'python -m {part}', flush=True)
        code = subprocess.run([sys.executable, '-m', part], cwd=ROOT).returncode
        status = status or code
    return status


if __name__ == '__main__':
    sys.exit(main())
