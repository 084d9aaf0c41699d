"""Re-execute every framework's notebook headlessly and store the outputs (``make outputs``).

Stored outputs come only from here, so that nbval can replay them. For each source
page (``chapters/<lang>/<page>.ipynb``) and framework, the derived notebook
(``booktools.derive``) runs top to bottom in a fresh ``d2l-book`` kernel
(``booktools.kernel``: fixed hash seed and figure backend, whatever the caller's
environment), in its own folder, with timing metadata dropped and streams
coalesced. The outputs go back into the source page, cell by cell id (a
``#@tab all`` cell must give every framework the same outputs), and the derived
notebooks are written anew. Running it twice on an unchanged tree changes nothing.

Usage::

    python -m booktools.execute                          # every page, language and framework
    python -m booktools.execute chapters/en/x.ipynb      # one page, every framework
"""

from __future__ import annotations

import argparse
import copy
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import nbformat
from nbclient import NotebookClient

from booktools import derive
from booktools.book import ROOT, editions, notebooks
from booktools.frameworks import FRAMEWORKS, Framework, cell_frameworks
from booktools.kernel import NAME as KERNEL_NAME

TIMEOUT_SECONDS = 600
WORKERS = 2


class OutputConflict(Exception):
    """A cell shared by several frameworks whose outputs differ between them."""


def run(notebook: nbformat.NotebookNode, folder: Path) -> nbformat.NotebookNode:
    """Execute ``notebook`` in a fresh kernel with ``folder`` as working directory; return it."""
    folder.mkdir(parents=True, exist_ok=True)
    client = NotebookClient(
        notebook,
        timeout=TIMEOUT_SECONDS,
        kernel_name=KERNEL_NAME,
        resources={"metadata": {"path": str(folder)}},
        record_timing=False,
        coalesce_streams=True,  # one stream output per cell, however the kernel chunked it
        allow_errors=False,
    )
    client.execute()
    return notebook


def execute_framework(source: Path, framework: Framework) -> dict[str, list[Any]]:
    """Run the derived notebook of ``source`` for ``framework``; return the outputs by cell id."""
    notebook = derive.derive(source, framework)
    for cell in notebook.cells:
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    run(notebook, derive.derived_path(source, framework).parent)
    return {cell["id"]: cell.outputs for cell in notebook.cells if cell.cell_type == "code"}


def merge_outputs(source: Path, outputs: dict[str, dict[str, list[Any]]]) -> None:
    """Store each framework's outputs in the source page's cells, by cell id.

    Raises:
        OutputConflict: if a cell shared by frameworks printed differently in them.
    """
    notebook = nbformat.read(source, as_version=4)
    for cell in notebook.cells:
        if cell.cell_type != "code":
            continue
        found = [(name, outputs[name][cell.id]) for name in outputs if name in (cell_frameworks(cell) or ())]
        first_name, first = found[0]
        for name, other in found[1:]:
            if other != first:
                raise OutputConflict(
                    f"{source.relative_to(ROOT)}, cell {cell.id}: a cell shared by {first_name} "
                    f"and {name} gives different outputs in them"
                )
        cell.outputs = copy.deepcopy(first)
        cell.execution_count = None  # the derived notebooks number their own cells
        cell.metadata.pop("execution", None)
    notebook.metadata.pop("widgets", None)
    nbformat.validate(notebook)
    nbformat.write(notebook, source)


def execute_page(source: Path) -> None:
    """Run every framework's notebook of one source page and store the outputs in it."""
    with ThreadPoolExecutor(max_workers=WORKERS) as pool:
        futures = {framework.name: pool.submit(execute_framework, source, framework) for framework in FRAMEWORKS}
        outputs = {name: future.result() for name, future in futures.items()}
    merge_outputs(source, outputs)


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point (``make outputs``)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*", type=Path, help="source pages (default: every edition)")
    args = parser.parse_args(argv)
    paths = [path.resolve() for path in args.paths] or [path for code in editions() for path in notebooks(code)]
    for path in paths:
        print(f"executing {path.relative_to(ROOT)} ({', '.join(f.name for f in FRAMEWORKS)})", flush=True)
        execute_page(path)
    derive.write()
    print("wrote the derived notebooks under notebooks/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
