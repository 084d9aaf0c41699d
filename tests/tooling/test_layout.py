"""The shape of ``booktools/``: one entry point, stage packages, small modules, each path spelled once.

These hold the layout ``docs/architecture.md`` describes, so that it cannot drift
back into a flat folder of peer modules that each derive their own paths.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

from booktools import __main__ as entry
from booktools.cli.verbs import chosen_verb
from booktools.project import BUILD, CHAPTERS, CONFIG_FILE, D2LBOOK_ENV, LIBRARY, NOTEBOOKS, TOC_FILE, Project

PROJECT = Project.here()
PACKAGE = PROJECT.root / "booktools"
MODULES = sorted(path for path in PACKAGE.rglob("*.py") if "__pycache__" not in path.parts)
MAX_LINES = 300
# The names of the project's files and folders: spelled in booktools/project.py only.
PATH_NAMES = (BUILD, CHAPTERS, CONFIG_FILE, D2LBOOK_ENV, LIBRARY, NOTEBOOKS, TOC_FILE)
# Strings that are such a name but not a path of the project: Jupyter Book's own output
# folder inside an edition's work folder, the toc's `chapters` key, and the default
# file name a config error names.
NOT_PATHS = {
    ("website/jupyter_book.py", BUILD),
    ("website/api_page.py", CHAPTERS),
    ("configuration/toc.py", CHAPTERS),  # the toc's key, named in its messages
    ("website/jupyter_book.py", CONFIG_FILE),
    ("website/jupyter_book.py", TOC_FILE),
    ("configuration/config_file.py", CONFIG_FILE),
    ("__main__.py", NOTEBOOKS),  # the verb
    ("pipeline/stages.py", NOTEBOOKS),  # the stage
}


def _docstrings(tree: ast.Module) -> set[int]:
    """The ids of the docstring constants of a module, its classes and its functions."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                found.add(id(body[0].value))
    return found


def test_the_top_of_booktools_holds_at_most_four_modules_and_the_rest_lives_in_stage_packages() -> None:
    top = sorted(path.name for path in PACKAGE.glob("*.py"))
    packages = sorted(path.name for path in PACKAGE.iterdir() if (path / "__init__.py").is_file())
    assert len(top) <= 4, top
    assert len(packages) >= 4, packages
    assert {"__init__.py", "__main__.py", "project.py"} <= set(top)


@pytest.mark.parametrize("path", MODULES, ids=lambda path: path.relative_to(PACKAGE).as_posix())
def test_no_module_is_longer_than_three_hundred_lines(path: Path) -> None:
    lines = len(path.read_text(encoding="utf-8").splitlines())
    assert lines <= MAX_LINES, f"{path.relative_to(PACKAGE)}: {lines} lines; split it by job"


@pytest.mark.parametrize("path", MODULES, ids=lambda path: path.relative_to(PACKAGE).as_posix())
def test_the_project_s_paths_are_spelled_in_project_py_only(path: Path) -> None:
    name = path.relative_to(PACKAGE).as_posix()
    if name == "project.py":
        return
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = _docstrings(tree)
    found = [
        f"line {node.lineno}: {node.value!r}"
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in docstrings
        and any(
            (node.value == path_name or node.value.startswith(f"{path_name}/")) and (name, path_name) not in NOT_PATHS
            for path_name in PATH_NAMES
        )
    ]
    assert not found, f"{name} spells a path of the project; ask the Project instead: {found}"


def test_every_makefile_target_that_runs_booktools_calls_a_verb() -> None:
    makefile = (PROJECT.root / "Makefile").read_text(encoding="utf-8")
    calls = re.findall(r"-m booktools(\S*)(?: (\S+))?", makefile)
    verbs = {verb.name for verb in entry.VERBS}
    assert calls, "the Makefile runs no booktools verb"
    assert [call for call, _ in calls if call] == [], "a module path instead of `python -m booktools <verb>`"
    assert {verb for _, verb in calls} <= verbs, sorted({verb for _, verb in calls} - verbs)


def _prerequisites(makefile: str, target: str) -> list[str]:
    return re.search(rf"^{re.escape(target)}:(.*)$", makefile, re.MULTILINE).group(1).split()  # type: ignore[union-attr]


def test_targets_that_only_edit_or_check_files_need_the_python_environment_alone() -> None:
    """make new-page, lib, notebooks and the checks run booktools on files: no npm ci (setup), no kernel."""
    makefile = (PROJECT.root / "Makefile").read_text(encoding="utf-8")
    for target in ("new-page", "lib", "notebooks", "check", "check-lib", "check-notebooks", "check-translations"):
        assert _prerequisites(makefile, target) == ["$(STAMP)"], target
    assert _prerequisites(makefile, "lab") == ["$(KERNEL_STAMP)"]  # JupyterLab runs the book's kernel
    for target in ("book", "audit", "pdf", "slides", "test-setup"):
        assert "setup" in _prerequisites(makefile, target), target


@pytest.mark.parametrize("verb", ["lib", "book", "check"])
def test_a_verb_s_command_line_imports_no_other_verb_s_package(verb: str) -> None:
    """Each verb's options are defined when it runs, so ``lib --help`` imports neither the audit nor the version
    matrix (their options read their packages), and ``audit --help`` does."""
    probe = (
        "import sys\n"
        "from booktools.__main__ import parse\n"
        "try:\n    parse(sys.argv[1:])\nexcept SystemExit:\n    pass\n"
        "print(sorted({m for m in sys.modules if m.startswith(('booktools.checks.', 'booktools.pipeline'))}))"
    )

    def imported(*argv: str) -> str:
        command = [sys.executable, "-c", probe, *argv]
        return subprocess.run(command, cwd=PROJECT.root, capture_output=True, text=True, check=True).stdout

    assert imported(verb, "--help").strip().splitlines()[-1] == "[]"
    assert "booktools.checks.audit.options" in imported("audit", "--help")
    assert "booktools.checks.version_matrix" in imported("versions", "--help")
    audit_help = imported("audit", "--help")
    assert "booktools.checks.audit.lighthouse" not in audit_help, "the audit's options read no Lighthouse run"


def test_the_verb_of_a_command_line_is_found_before_any_option_is_defined() -> None:
    assert chosen_verb(["--root", "/x", "new-page", "p", "--title", "T"]) == "new-page"
    assert chosen_verb(["lib", "--help"]) == "lib"
    assert chosen_verb(["--help"]) is None and chosen_verb([]) is None
    assert entry.parse(["audit", "--fail-under", "50"]).fail_under == 50


def test_help_lists_every_verb_with_its_one_line() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "booktools", "--help"], cwd=PROJECT.root, capture_output=True, text=True, check=True
    )
    listed = " ".join(result.stdout.split())
    for verb in entry.VERBS:
        assert f"{verb.name} {verb.help}" in listed, verb.name


def test_an_unknown_verb_is_refused_with_the_list_of_verbs() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "booktools", "bake"], cwd=PROJECT.root, capture_output=True, text=True, check=False
    )
    assert result.returncode == 2
    assert "invalid choice: 'bake'" in result.stderr and "lib" in result.stderr


def test_lab_passes_the_options_it_does_not_know_to_jupyterlab() -> None:
    args = entry.parse(["lab", "--ServerApp.port=9999", "--no-browser"])
    assert args.options == ["--ServerApp.port=9999", "--no-browser"]
    assert entry.parse(["lab"]).options == []


def test_other_verbs_refuse_options_they_do_not_know(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        entry.parse(["book", "--frobnicate"])
    assert stopped.value.code == 2
    assert "unrecognized arguments: --frobnicate" in capsys.readouterr().err


def test_root_names_the_checkout_every_stage_works_on(tmp_path: Path) -> None:
    args = entry.parse(["--root", str(tmp_path), "outputs", "chapters/en/a.ipynb"])
    assert args.root == tmp_path and args.pages == [Path("chapters/en/a.ipynb")]
