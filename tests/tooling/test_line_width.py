"""Every code block and every printed output of every page fits 79 columns.

The book's code follows PEP 8, so that no code block or output scrolls sideways
on a 1280-pixel screen. Columns are counted as a monospaced font shows them:
a Hangul or CJK character takes two. The limit applies to what a reader sees: the code of a
cell without its ``#@tab`` line (``#@save`` marks included, as the book shows
them), the fenced code blocks of markdown cells, and the text a cell prints or
returns. Images and HTML outputs (the quiz) have no columns.
"""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

import nbformat
import pytest

from booktools.project import Project
from booktools.sources.frameworks import strip_marks

MAX_COLUMNS = 79
# A fenced code block; a fence whose info string starts with "{" is a MyST directive.
FENCE = re.compile(r"^(```|~~~)(?!\{)[^\n]*\n(.*?)^\1\s*$", re.MULTILINE | re.DOTALL)
PROJECT = Project.here()
SOURCES = [path for language in PROJECT.editions() for path in PROJECT.source_pages(language)]


def columns(line: str) -> int:
    """How many columns ``line`` takes on screen: wide characters (Hangul, CJK) take two."""
    return sum(2 if unicodedata.east_asian_width(char) in "WF" else 1 for char in line)


def text_outputs(cell: nbformat.NotebookNode) -> list[str]:
    """The text a code cell shows: its streams, its plain-text results and errors."""
    texts = []
    for output in cell.get("outputs", []):
        if output.output_type == "stream":
            texts.append(output.text)
        elif output.output_type in ("execute_result", "display_data"):
            data = output.get("data", {})
            if "text/plain" in data and not ({"image/png", "image/svg+xml", "text/html"} & data.keys()):
                texts.append(data["text/plain"])
        elif output.output_type == "error":
            texts.append(f"{output.ename}: {output.evalue}")
    return texts


def too_wide(path: Path) -> list[str]:
    """Each line of ``path`` that a reader sees wider than MAX_COLUMNS, with its cell."""
    problems = []
    for cell in nbformat.read(path, as_version=4).cells:
        if cell.cell_type == "code":
            shown = [("code", strip_marks(cell))] + [("output", text) for text in text_outputs(cell)]
        else:
            shown = [("code block", match.group(2)) for match in FENCE.finditer(cell.source)]
        for kind, text in shown:
            for line in text.splitlines():
                if columns(line) > MAX_COLUMNS:
                    problems.append(f"cell {cell.get('id')}, {kind}, {columns(line)} columns: {line.strip()[:60]}")
    return problems


@pytest.mark.parametrize("path", SOURCES, ids=PROJECT.relative)
def test_code_and_outputs_fit_79_columns(path: Path) -> None:
    problems = too_wide(path)
    assert not problems, (
        f"{PROJECT.relative(path)}: {len(problems)} lines wider than {MAX_COLUMNS} columns:\n" + "\n".join(problems)
    )
