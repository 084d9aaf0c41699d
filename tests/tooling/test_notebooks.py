"""Stored outputs are complete and nbval stays strict in every edition."""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest
import tomllib

from booktools.book import ROOT, editions, notebooks

NOTEBOOKS = [path for language in editions() for path in notebooks(language)]
SKIPPING_TAGS = {"nbval-skip", "skip-execution", "raises-exception", "nbval-raises-exception", "nbval-ignore-output"}
SKIPPING_COMMENT = re.compile(r"#\s*NBVAL_(SKIP|IGNORE_OUTPUT|RAISES_EXCEPTION)", re.IGNORECASE)
TIMING_CALL = re.compile(r"\b(perf_counter|timeit)\b")
IGNORE_REASON = re.compile(r"^\s*#\s*nbval-ignore-output:\s*\S", re.MULTILINE)


def ids(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def code_cells(path: Path):
    notebook = nbformat.read(path, as_version=4)
    return [(number, cell) for number, cell in enumerate(notebook.cells, start=1) if cell.cell_type == "code"]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=ids)
def test_every_code_cell_was_executed_top_to_bottom(path: Path):
    counts = [cell.execution_count for _, cell in code_cells(path)]
    assert counts == list(range(1, len(counts) + 1)), f"{ids(path)}: run `make outputs` (execution counts {counts})"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=ids)
def test_no_stored_errors(path: Path):
    for number, cell in code_cells(path):
        assert all(output.output_type != "error" for output in cell.outputs), f"{ids(path)}, cell {number}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=ids)
def test_only_timing_cells_ignore_their_output_and_say_why(path: Path):
    for number, cell in code_cells(path):
        where = f"{ids(path)}, cell {number} (id {cell.get('id')})"
        tags = set(cell.metadata.get("tags", []))
        assert not SKIPPING_COMMENT.search(cell.source), f"{where}: nbval comment markers are not allowed"
        assert not (tags & SKIPPING_TAGS) - {"nbval-ignore-output"}, f"{where}: skipping tags {tags}"
        if "nbval-ignore-output" in tags:
            assert TIMING_CALL.search(cell.source), f"{where}: only cells that measure time may ignore output"
            assert IGNORE_REASON.search(cell.source), f"{where}: needs a '# nbval-ignore-output: <why>' comment"


def test_nbval_runs_strict():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]
    makefile = (ROOT / "Makefile").read_text()
    for text in (config["addopts"], makefile):
        assert "--nbval-lax" not in text and "--nbval-sanitize-with" not in text
    assert "booktools.nbval_figures" in config["addopts"]
    assert "--nbval" in makefile
