"""The notebooks replay on another CPU: every notebook of one edition, all three frameworks, with
each framework forced onto other kernels than the ones this machine picks.

One test per framework, each its own unit of work for pytest-xdist (``SPLIT_FILES`` in
``tests/conftest.py``): the two workers share the three replays.

The stored outputs are written by ``make outputs`` with each framework's default kernels
for the CPU at hand; a contributor's laptop, a CI runner or Colab may have older or newer
instructions, and the last digit of a printed float changes with them. This replay runs
the notebooks as such a CPU would, through nbval with the book's plugin
(``booktools.checks.nbval_plugin``: numbers within ``booktools.configuration.bars.MAX_LAST_DIGIT_UNITS``
units of their last digit, the rest exact), and must pass. The variables:

- ``ATEN_CPU_CAPABILITY=default``: PyTorch's own kernels without AVX2/AVX-512;
- ``MKL_ENABLE_INSTRUCTIONS=SSE4_2``: MKL's BLAS (PyTorch's matmul) on SSE4.2 code paths;
- ``ONEDNN_MAX_CPU_ISA=SSE41``: oneDNN (PyTorch's and TensorFlow's) on SSE4.1 code;
- ``TF_ENABLE_ONEDNN_OPTS=0``: TensorFlow on its Eigen kernels instead of oneDNN's;
- ``XLA_FLAGS=--xla_cpu_max_isa=AVX``: XLA (JAX) generates AVX code, without AVX2, FMA
  or AVX-512, as on a CPU of 2011. JAX ignores the oneDNN and MKL variables; on an
  AVX-512 machine this flag changes its matmul sums. (``SSE4_2`` would be older still,
  but XLA 0.10.2 then fails to compile float16 code: "Failed to materialize symbols".)
"""

from __future__ import annotations

import os
import re
import subprocess
import sys

import nbformat
import pytest

from booktools.derive.notebooks import derived_path
from booktools.project import Project
from booktools.runtime.kernel import NAME as KERNEL
from booktools.sources.frameworks import FRAMEWORKS, NAMES, Framework

PROJECT = Project.here()
EDITION = "en"
OTHER_KERNELS = {
    "ATEN_CPU_CAPABILITY": "default",
    "MKL_ENABLE_INSTRUCTIONS": "SSE4_2",
    "ONEDNN_MAX_CPU_ISA": "SSE41",
    "TF_ENABLE_ONEDNN_OPTS": "0",
    "XLA_FLAGS": "--xla_cpu_max_isa=AVX",
}


@pytest.mark.parametrize("framework", FRAMEWORKS, ids=NAMES)
def test_every_notebook_of_an_edition_replays_on_other_cpu_kernels(framework: Framework):
    paths = [derived_path(source, framework, PROJECT) for source in PROJECT.source_pages(EDITION)]
    assert paths and all(path.is_file() for path in paths), paths
    cells = sum(cell.cell_type == "code" for path in paths for cell in nbformat.read(path, as_version=4).cells)
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "--nbval",
            "--nbval-kernel-name",
            KERNEL,
            "-p",
            "no:cacheprovider",
            "-q",
            *map(str, paths),
        ],
        cwd=PROJECT.root,
        env={**os.environ, **OTHER_KERNELS},
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    summary = result.stdout.strip().splitlines()[-1] if result.stdout.strip() else result.stderr[-2000:]
    assert result.returncode == 0, result.stdout[-6000:]
    ran = int(re.search(r"(\d+) passed", summary)[1])  # type: ignore[index]
    assert ran == cells > 0 and "skipped" not in summary and "xfail" not in summary, (cells, summary)
