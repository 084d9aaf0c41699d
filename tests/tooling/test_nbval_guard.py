"""booktools.checks.nbval_plugin replaces nbval's IPyNbCell.compare_outputs: pyproject.toml's addopts load it
in every pytest run (``-p``), and it acts in a run given ``--nbval`` or ``--nbval-lax`` and in no other; it stops
the run with a clear message, rather than silently comparing no figure, when nbval changes."""

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
# pytest collects with the arguments given (and pyproject.toml's addopts), then says whether the plugin is
# loaded and whether nbval's comparison is the book's.
PROBE = """
import sys, pytest
from nbval.plugin import IPyNbCell

class Loaded:
    def pytest_configure(self, config):
        self.loaded = config.pluginmanager.hasplugin({plugin!r})

probe = Loaded()
status = pytest.main(["-q", "-p", "no:cacheprovider", "--collect-only", *sys.argv[1:]], plugins=[probe])
installed = bool(getattr(IPyNbCell.compare_outputs, {mark!r}, False))
print("status", int(status), "loaded", probe.loaded, "installed", installed)
"""


def _installed_when_collecting(*arguments: str) -> str:
    probe = PROBE.format(plugin=nbval_plugin.__name__, mark=nbval_plugin.MARK)
    command = [sys.executable, "-c", probe, *arguments]
    result = subprocess.run(command, cwd=PROJECT.root, capture_output=True, text=True, timeout=300, check=False)
    return result.stdout.strip().splitlines()[-1] if result.stdout.strip() else result.stderr[-2000:]


def test_the_figure_comparison_is_installed_where_the_notebooks_replay_and_nowhere_else() -> None:
    notebook = PROJECT.relative(sorted(PROJECT.notebooks_dir.glob("en/*/*.ipynb"))[0])
    tests = "tests/tooling/test_nbval_numbers.py"
    assert _installed_when_collecting("--nbval", notebook) == "status 0 loaded True installed True"
    # loaded by addopts in every run, the plugin leaves nbval as it is where nothing replays a notebook
    assert _installed_when_collecting(tests) == "status 0 loaded True installed False"


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


class Options:
    """The part of a pytest config the plugin reads: the options it was given (nbval's, by destination)."""

    def __init__(self, **given: bool) -> None:
        self.given = given

    def getoption(self, name: str, default: Any = None) -> Any:
        return self.given.get(name, default)


@pytest.mark.parametrize("option", nbval_plugin.NBVAL_OPTIONS)
def test_pytest_configure_refuses_a_changed_nbval(monkeypatch: pytest.MonkeyPatch, option: str) -> None:
    config: Any = Options(**{option: True})
    monkeypatch.setattr(IPyNbCell, "compare_outputs", lambda self, test, ref: True)
    with pytest.raises(pytest.UsageError, match="has changed"):
        nbval_plugin.pytest_configure(config)
    monkeypatch.delattr(IPyNbCell, "compare_outputs")
    with pytest.raises(pytest.UsageError, match="no method compare_outputs"):
        nbval_plugin.pytest_configure(config)


def test_pytest_configure_leaves_nbval_alone_in_a_run_that_replays_no_notebook(monkeypatch: pytest.MonkeyPatch):
    """Without --nbval nothing is checked or replaced, even a changed nbval (or none: pytest knows no option)."""
    changed = lambda self, test, ref: True  # noqa: E731
    monkeypatch.setattr(IPyNbCell, "compare_outputs", changed)
    config: Any = Options()
    nbval_plugin.pytest_configure(config)
    assert IPyNbCell.compare_outputs is changed
    monkeypatch.setattr(nbval_plugin, "require_releases", lambda tools: pytest.fail("the guard ran"))
    nbval_plugin.pytest_configure(config)


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
