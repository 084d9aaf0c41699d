"""Re-execute every framework's notebook headlessly and store the outputs (``make outputs``).

Stored outputs come only from here, so that nbval can replay them. For each source
page (``chapters/<lang>/<page>.ipynb``) and framework, the derived notebook
(``booktools.derive.notebooks``) runs top to bottom in a fresh ``d2l-book`` kernel
(``booktools.runtime.kernel``: fixed hash seed and figure backend, whatever the caller's
environment), in its own folder, with timing metadata dropped and streams
coalesced. The outputs go back into the source page, cell by cell id (a
``#@tab all`` cell must give every framework the same outputs), and the derived
notebooks are written anew. Running it twice on an unchanged tree changes nothing.

Usage::

    python -m booktools outputs                          # every page, language and framework
    python -m booktools outputs chapters/en/x.ipynb      # one page, every framework
"""

from __future__ import annotations

import copy
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import nbformat
from nbclient import NotebookClient

from booktools.derive import notebooks as derive
from booktools.project import Project
from booktools.runtime.kernel import NAME as KERNEL_NAME
from booktools.sources.frameworks import FRAMEWORKS, Framework, cell_frameworks

TIMEOUT_SECONDS = 600
WORKERS = 2


class OutputConflict(Exception):
    """A cell shared by several frameworks whose outputs differ between them."""


def execute(notebook: nbformat.NotebookNode, folder: Path) -> nbformat.NotebookNode:
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


def execute_framework(source: Path, framework: Framework, project: Project) -> dict[str, list[Any]]:
    """Run the derived notebook of ``source`` for ``framework``; return the outputs by cell id."""
    notebook = derive.derive(source, framework, project, figures=False)  # the figures are what it measures
    for cell in notebook.cells:
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    execute(notebook, derive.derived_path(source, framework, project).parent)
    return {cell["id"]: cell.outputs for cell in notebook.cells if cell.cell_type == "code"}


def _without_counts(outputs: list[Any]) -> list[Any]:
    """``outputs`` without the execution counts of their results, which number a framework's own cells."""
    return [{key: value for key, value in output.items() if key != "execution_count"} for output in outputs]


def merge_outputs(source: Path, outputs: dict[str, dict[str, list[Any]]], project: Project) -> None:
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
            if _without_counts(other) != _without_counts(first):
                raise OutputConflict(
                    f"{project.relative(source)}, cell {cell.id}: a cell shared by {first_name} "
                    f"and {name} gives different outputs in them"
                )
        cell.outputs = copy.deepcopy(first)
        cell.execution_count = None  # the derived notebooks number their own cells
        cell.metadata.pop("execution", None)
    notebook.metadata.pop("widgets", None)
    nbformat.validate(notebook)
    nbformat.write(notebook, source)


def execute_page(source: Path, project: Project) -> None:
    """Run every framework's notebook of one source page and store the outputs in it."""
    with ThreadPoolExecutor(max_workers=WORKERS) as pool:
        futures = {
            framework.name: pool.submit(execute_framework, source, framework, project) for framework in FRAMEWORKS
        }
        outputs = {name: future.result() for name, future in futures.items()}
    merge_outputs(source, outputs, project)


def run(project: Project, paths: list[Path] | None = None) -> int:
    """``python -m booktools outputs [page ...]``: execute the given source pages (default: all) and store outputs."""
    pages = paths or [path for code in project.editions() for path in project.source_pages(code)]
    for path in pages:
        print(f"executing {project.relative(path)} ({', '.join(f.name for f in FRAMEWORKS)})", flush=True)
        execute_page(path, project)
    derive.write(project)
    print(f"wrote the derived notebooks under {project.relative(project.notebooks_dir)}/")
    return 0
