"""Stored outputs are complete and nbval stays strict, in every edition and framework.

The checks of what runs (executed cells, errors, cells that ignore their output)
apply to the derived notebooks under ``notebooks/``, which nbval replays; the
checks of what is written apply to the source pages under ``chapters/``.
"""

from __future__ import annotations

import io
import re
import tokenize
from pathlib import Path

import nbformat
import pytest
import tomllib

from booktools.__main__ import VERBS
from booktools.derive import notebooks as derive
from booktools.project import Project
from booktools.runtime import kernel
from booktools.runtime.kernel import NAME as KERNEL_NAME
from booktools.sources.frameworks import FRAMEWORKS

PROJECT = Project.here()
SOURCES = [path for language in PROJECT.editions() for path in PROJECT.source_pages(language)]
DERIVED = [derive.derived_path(source, framework, PROJECT) for source in SOURCES for framework in FRAMEWORKS]
SKIPPING_TAGS = {"nbval-skip", "skip-execution", "raises-exception", "nbval-raises-exception", "nbval-ignore-output"}
SKIPPING_COMMENT = re.compile(r"#\s*NBVAL_(SKIP|IGNORE_OUTPUT|RAISES_EXCEPTION)", re.IGNORECASE)
TIMING_CALL = re.compile(r"\b(perf_counter|timeit)\b")
MAX_TIMING_CELLS = 3  # per page, framework and edition: every other output is replayed exactly
IGNORE_REASON = re.compile(r"^\s*#\s*nbval-ignore-output:\s*\S", re.MULTILINE)


def code_cells(path: Path) -> list[tuple[int, nbformat.NotebookNode]]:
    """The code cells of a notebook with their position (from 1); a missing derived notebook fails."""
    if not path.exists():
        pytest.fail(f"{PROJECT.relative(path)} is missing: run `make notebooks`")
    notebook = nbformat.read(path, as_version=4)
    return [(number, cell) for number, cell in enumerate(notebook.cells, start=1) if cell.cell_type == "code"]


@pytest.mark.parametrize("path", DERIVED, ids=lambda path: str(PROJECT.relative(path)))
def test_every_measured_figure_is_written_into_the_derived_notebooks(path: Path):
    """No ``{measured}`` placeholder is left for Jupyter or Colab to show as text (booktools.sources.measured)."""
    if not path.exists():
        pytest.fail(f"{PROJECT.relative(path)} is missing: run `make notebooks`")
    notebook = nbformat.read(path, as_version=4)
    left = [cell.id for cell in notebook.cells if cell.cell_type == "markdown" and "{measured}" in cell.source]
    assert left == [], f"{PROJECT.relative(path)}: placeholders left in cells {left}; run `make notebooks`"


def ends_with_semicolon(source: str) -> bool:
    """Whether a cell's code ends with ``;``, ignoring comments and blank lines."""
    skipped = {tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.ENDMARKER, tokenize.INDENT, tokenize.DEDENT}
    try:
        tokens = [
            token for token in tokenize.generate_tokens(io.StringIO(source).readline) if token.type not in skipped
        ]
    except (tokenize.TokenError, SyntaxError):
        return False
    return bool(tokens) and tokens[-1].string == ";"


def test_every_page_has_a_notebook_per_framework():
    assert len(SOURCES) == len(PROJECT.editions()) * len(PROJECT.source_pages()) and len(DERIVED) == len(SOURCES) * len(
        FRAMEWORKS
    )
    assert {path.parent.name for path in DERIVED} == {framework.name for framework in FRAMEWORKS}


@pytest.mark.parametrize("path", DERIVED, ids=PROJECT.relative)
def test_every_code_cell_was_executed_top_to_bottom(path: Path):
    counts = [cell.execution_count for _, cell in code_cells(path)]
    assert counts == list(range(1, len(counts) + 1)), (
        f"{PROJECT.relative(path)}: run `make notebooks` (execution counts {counts})"
    )


@pytest.mark.parametrize("path", DERIVED, ids=PROJECT.relative)
def test_no_stored_errors(path: Path):
    for number, cell in code_cells(path):
        assert all(output.output_type != "error" for output in cell.outputs), f"{PROJECT.relative(path)}, cell {number}"


@pytest.mark.parametrize("path", DERIVED, ids=PROJECT.relative)
def test_only_timing_cells_ignore_their_output_and_say_why(path: Path):
    for number, cell in code_cells(path):
        where = f"{PROJECT.relative(path)}, cell {number} (id {cell.get('id')})"
        tags = set(cell.metadata.get("tags", []))
        assert not SKIPPING_COMMENT.search(cell.source), f"{where}: nbval comment markers are not allowed"
        assert not (tags & SKIPPING_TAGS) - {"nbval-ignore-output"}, f"{where}: skipping tags {tags}"
        if "nbval-ignore-output" in tags:
            assert TIMING_CALL.search(cell.source), f"{where}: only cells that measure time may ignore output"
            assert IGNORE_REASON.search(cell.source), f"{where}: needs a '# nbval-ignore-output: <why>' comment"
    ignored = [cell.get("id") for _, cell in code_cells(path) if "nbval-ignore-output" in cell.metadata.get("tags", [])]
    assert len(ignored) <= MAX_TIMING_CELLS, f"{PROJECT.relative(path)}: {len(ignored)} timing cells {ignored}"


@pytest.mark.parametrize("path", SOURCES, ids=PROJECT.relative)
def test_source_pages_hold_no_nbval_markers_and_only_outputs_of_make_outputs(path: Path):
    """A source page runs every framework's code in one namespace, so it is never run as it is:
    its outputs come from `make outputs`, which leaves the execution counts empty."""
    for number, cell in code_cells(path):
        where = f"{PROJECT.relative(path)}, cell {number} (id {cell.get('id')})"
        assert not SKIPPING_COMMENT.search(cell.source), f"{where}: nbval comment markers are not allowed"
        assert not set(cell.metadata.get("tags", [])) & (SKIPPING_TAGS - {"nbval-ignore-output"}), where
        assert cell.execution_count is None, f"{where}: executed by hand; run `make outputs`"


@pytest.mark.parametrize("path", SOURCES, ids=PROJECT.relative)
def test_no_code_cell_silences_its_value_with_a_semicolon(path: Path):
    """IPython hides the value of a cell ending in ``;`` only when it records the cell in its
    history: `make outputs` (nbclient) does, nbval does not (store_history=False), so nbval
    would print a value the notebook never stored, such as ``<matplotlib.image.AxesImage ...>``."""
    for number, cell in code_cells(path):
        assert not ends_with_semicolon(cell.source), (
            f"{PROJECT.relative(path)}, cell {number} (id {cell.get('id')}): ends with ';'; "
            "assign the value or call plt.show()"
        )


def test_the_semicolon_check_sees_through_comments():
    assert ends_with_semicolon("plt.plot(x);  # no value\n\n")
    assert not ends_with_semicolon("x = 1\n# the end;")
    assert not ends_with_semicolon("s = 'a;'")


def test_nbval_runs_strict_on_the_derived_notebooks_in_the_book_kernel():
    config = tomllib.loads((PROJECT.root / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]
    makefile = (PROJECT.root / "Makefile").read_text()
    for text in (config["addopts"], makefile):
        assert "--nbval-lax" not in text and "--nbval-sanitize-with" not in text
    # the book's comparison is registered by name where a reader of pytest's configuration looks for it
    # (it acts only where --nbval is given), not by a file generated among the notebooks
    assert re.search(r"(^|\s)-p booktools\.checks\.nbval_plugin(\s|$)", config["addopts"]), config["addopts"]
    assert not (PROJECT.notebooks_dir / "conftest.py").exists()
    assert "notebooks" in config["testpaths"] and "chapters" not in config["testpaths"]
    assert re.search(r"^KERNEL := (\S+)$", makefile, re.MULTILINE).group(1) == KERNEL_NAME
    pytest_recipe = makefile.split("\npytest:", 1)[1].split("\n\n", 1)[0]
    assert "--nbval " in pytest_recipe and "--nbval-kernel-name $(KERNEL)" in pytest_recipe
    # `make setup` installs the kernel (the verb `kernel`) in a rule of its own, again whenever its spec
    # changes, without remaking the environment
    assert re.search(r"^KERNEL_SPEC := (\S+)$", makefile, re.MULTILINE).group(1) == PROJECT.relative(
        Path(kernel.__file__)
    )
    kernel_rule = makefile.split("\n$(KERNEL_STAMP):", 1)[1].split("\n\n", 1)[0]
    assert re.search(r"^\t\$\(PY\) -m booktools kernel$", kernel_rule, re.MULTILINE), kernel_rule
    assert "$(KERNEL_SPEC)" in kernel_rule.splitlines()[0].split(), kernel_rule
    environment_rule = makefile.split("\n$(STAMP):", 1)[1].split("\n\n", 1)[0]
    assert "kernel" not in environment_rule, environment_rule
    assert "$(KERNEL_STAMP)" in makefile.split("\nsetup:", 1)[1].split("\n", 1)[0].split()
    assert "kernel" in {verb.name for verb in VERBS}
