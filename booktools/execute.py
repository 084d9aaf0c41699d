"""Re-execute notebooks headlessly and store their outputs (``make outputs``).

Stored outputs come only from here, so that nbval can replay them: each notebook
runs top to bottom in a fresh kernel, in its own folder, with timing metadata
dropped. Running it twice on an unchanged tree changes nothing.

Usage::

    python -m booktools.execute                 # every edition
    python -m booktools.execute chapters/en/x.ipynb
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient

from booktools.book import ROOT, editions, notebooks

TIMEOUT_SECONDS = 600


def execute(path: Path) -> None:
    """Run ``path`` in a fresh kernel and write it back with its new outputs."""
    notebook = nbformat.read(path, as_version=4)
    os.environ.setdefault("PYTHONHASHSEED", "0")
    client = NotebookClient(
        notebook,
        timeout=TIMEOUT_SECONDS,
        kernel_name="python3",
        resources={"metadata": {"path": str(path.parent)}},
        record_timing=False,
        coalesce_streams=True,  # one stream output per cell, however the kernel chunked it
        allow_errors=False,
    )
    client.execute()
    for cell in notebook.cells:
        cell.metadata.pop("execution", None)
    notebook.metadata.pop("widgets", None)
    nbformat.validate(notebook)
    nbformat.write(notebook, path)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*", type=Path, help="notebooks (default: every edition)")
    args = parser.parse_args(argv)
    paths = args.paths or [path for language in editions() for path in notebooks(language)]
    for path in paths:
        print(f"executing {path.resolve().relative_to(ROOT)}", flush=True)
        execute(path.resolve())
    return 0


if __name__ == "__main__":
    sys.exit(main())
