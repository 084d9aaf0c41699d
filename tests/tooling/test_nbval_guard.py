"""booktools.checks.nbval_plugin replaces nbval's IPyNbCell.compare_outputs: in a run that collects the
notebooks (``notebooks/conftest.py``) and in no other, and it stops the run with a clear message, rather than
silently comparing no figure, when nbval changes."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import pytest
from nbval.plugin import IPyNbCell

from booktools.checks import nbval_plugin
from booktools.checks.nbval_plugin import NbvalChanged, original_compare_outputs
from booktools.project import Project

PROJECT = Project.here()
# pytest collects the paths given, then says whether nbval's comparison is the book's.
PROBE = """
import sys, pytest
from nbval.plugin import IPyNbCell
status = pytest.main(["-q", "-p", "no:cacheprovider", "--collect-only", "--nbval", *sys.argv[1:]])
print("status", int(status), "installed", bool(getattr(IPyNbCell.compare_outputs, {mark!r}, False)))
"""


def _installed_when_collecting(*paths: str) -> str:
    command = [sys.executable, "-c", PROBE.format(mark=nbval_plugin.MARK), *paths]
    result = subprocess.run(command, cwd=PROJECT.root, capture_output=True, text=True, timeout=300, check=False)
    return result.stdout.strip().splitlines()[-1] if result.stdout.strip() else result.stderr[-2000:]


def test_the_figure_comparison_is_installed_where_the_notebooks_replay_and_nowhere_else() -> None:
    notebook = PROJECT.relative(sorted(PROJECT.notebooks_dir.glob("en/*/*.ipynb"))[0])
    assert _installed_when_collecting(notebook) == "status 0 installed True"
    assert _installed_when_collecting("tests/tooling/test_nbval_numbers.py") == "status 0 installed False"


def test_nbvals_own_method_has_the_expected_signature() -> None:
    class Cell:
        def compare_outputs(self, test, ref, skip_compare=None):  # nbval 0.11
            return True

    assert original_compare_outputs(Cell) is Cell.compare_outputs


def test_a_missing_method_stops_the_run_with_a_clear_message() -> None:
    class Cell:
        pass

    with pytest.raises(
        NbvalChanged,
        match=r"its Cell has no method compare_outputs, not nbval 0\.11\.0's .*booktools/upstream/tools\.py",
    ):
        original_compare_outputs(Cell)


@pytest.mark.parametrize(
    "changed",
    [
        lambda self, test, ref: True,  # an argument dropped
        lambda self, test, ref, skip_compare=None, strict=False: True,  # one added
        lambda self, outputs, reference, skip_compare=None: True,  # renamed
    ],
)
def test_a_changed_signature_stops_the_run_with_a_clear_message(changed: Any) -> None:
    cell = type("IPyNbCell", (), {"compare_outputs": changed})
    with pytest.raises(
        NbvalChanged,
        match=r"IPyNbCell\.compare_outputs\(.*\) has changed from nbval 0\.11\.0's .*booktools/checks/nbval_plugin\.py",
    ):
        original_compare_outputs(cell)


def test_pytest_configure_refuses_a_changed_nbval(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(IPyNbCell, "compare_outputs", lambda self, test, ref: True)
    with pytest.raises(pytest.UsageError, match="has changed"):
        nbval_plugin.pytest_configure(pytest.Config.__new__(pytest.Config))
    monkeypatch.delattr(IPyNbCell, "compare_outputs")
    with pytest.raises(pytest.UsageError, match="no method compare_outputs"):
        nbval_plugin.pytest_configure(pytest.Config.__new__(pytest.Config))


def test_the_replacement_calls_nbval_first_then_compares_figures() -> None:
    calls = []

    def original(self: Any, test: list[dict[str, Any]], ref: list[dict[str, Any]], skip_compare: Any = None) -> bool:
        calls.append(skip_compare)
        return False

    compare = nbval_plugin.comparing_outputs(original)
    assert compare(object(), [], [], ("x",)) is False and calls == [("x",)]

    class Changed:  # nbval passed, but its cells lost an attribute the figure comparison reports through
        fspath, name = "notebook.ipynb", "Cell 1"

    with pytest.raises(NbvalChanged, match="comparison_traceback"):
        nbval_plugin.comparing_outputs(lambda *args: True)(Changed(), [], [], None)
