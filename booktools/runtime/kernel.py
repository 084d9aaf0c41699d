"""The Jupyter kernel every run of the book's notebooks uses (``make outputs``, nbval, ``make lab``).

``python -m booktools kernel`` installs the kernel spec ``d2l-book`` into the
running environment (``.venv/share/jupyter/kernels/``). Its environment is fixed
here, whatever the caller's: hash seed 0, and Matplotlib's inline backend, so that
figures are displayed even when the caller exports ``MPLBACKEND=Agg`` (a common
CI setting that would otherwise reach the kernel and hide every heatmap).

It also leaves out of every output what compiled libraries write straight to the
process's file descriptors (``capture_fd_output=False``): TensorFlow's C++ start-up
notes (``WARNING: All log messages before absl::InitializeLog() ...``, ``oneDNN
custom operations are on``, with a time stamp and a thread id) are printed on some
CPUs and not others, and ``TF_CPP_MIN_LOG_LEVEL`` no longer silences them. Python's
own ``print`` and warnings go through ``sys.stdout`` and ``sys.stderr``, which the
kernel captures as always.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

NAME = "d2l-book"
DISPLAY_NAME = "Python 3 (d2l book)"
ENV = {
    "PYTHONHASHSEED": "0",
    "MPLBACKEND": "module://matplotlib_inline.backend_inline",
    "TF_CPP_MIN_LOG_LEVEL": "2",  # TensorFlow's C++ start-up notes are not part of any output
}

# Only what Python writes to sys.stdout / sys.stderr is output; see the module's docstring.
KERNEL_OPTIONS = ("--IPKernelApp.capture_fd_output=False",)


def spec(python: str = sys.executable) -> dict[str, Any]:
    """Return the kernel spec (``kernel.json``) for the Python at ``python``."""
    return {
        "argv": [python, "-m", "ipykernel_launcher", *KERNEL_OPTIONS, "-f", "{connection_file}"],
        "display_name": DISPLAY_NAME,
        "language": "python",
        "env": dict(ENV),
        "metadata": {"debugger": True},
    }


def install(prefix: Path = Path(sys.prefix)) -> Path:
    """Write the kernel spec under ``prefix/share/jupyter/kernels/`` and return its folder."""
    folder = prefix / "share" / "jupyter" / "kernels" / NAME
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "kernel.json").write_text(json.dumps(spec(), indent=1) + "\n", encoding="utf-8")
    return folder
