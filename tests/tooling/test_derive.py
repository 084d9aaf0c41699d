"""The per-framework notebooks (`make notebooks` / `make check-notebooks`), on a synthetic
page: which cells each framework gets, the install cell, stored outputs, drift
detection, and byte-stable output."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from booktools.derive import notebooks as derive
from booktools.project import Project
from booktools.sources.frameworks import FRAMEWORKS, Framework, by_name

PAGE = Path("chapters/en/tabs.ipynb")
EXPECTED_IDS = {
    "pytorch": ["install", "title", "setup", "double", "pair-md", "pair", "shared-print", "end"],
    "jax": ["install", "title", "setup", "note-jax", "double-jax", "pair-md", "pair", "shared-print", "end"],
    "tensorflow": ["install", "title", "setup", "double-tf", "pair-md", "pair-tf", "shared-print", "end"],
}


def framework_ids(framework: Framework) -> str:
    return framework.name


def derived(book: Path, framework: Framework, page: Path = PAGE) -> nbformat.NotebookNode:
    """The notebook of ``framework`` derived from a page of the synthetic book."""
    return derive.derive(book / page, framework, Project(book))


def run_derive(book: Path, *args: str, seed: str = "0") -> subprocess.CompletedProcess:
    """``python -m booktools --root <book> notebooks`` in ``book``, with its own copy of booktools."""
    env = {"PYTHONPATH": str(book), "PATH": "", "PYTHONHASHSEED": seed}
    return subprocess.run(
        [sys.executable, "-m", "booktools", "--root", str(book), "notebooks", *args],
        cwd=book,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )


# What a derived notebook holds ---------------------------------------------------------


@pytest.mark.parametrize("framework", FRAMEWORKS, ids=framework_ids)
def test_a_framework_gets_the_install_cell_the_shared_cells_and_its_own(synthetic_book: Path, framework: Framework):
    notebook = derived(synthetic_book, framework)
    assert [cell.get("id") for cell in notebook.cells] == EXPECTED_IDS[framework.name]
    nbformat.validate(notebook)


@pytest.mark.parametrize("framework", FRAMEWORKS, ids=framework_ids)
def test_the_framework_marks_are_stripped_and_the_rest_is_kept(synthetic_book: Path, framework: Framework):
    notebook = derived(synthetic_book, framework)
    source = nbformat.read(synthetic_book / PAGE, as_version=4)
    for cell in notebook.cells:
        lines = cell.source.splitlines()
        assert not any(line.startswith(("#@tab", ":begin_tab:", ":end_tab:")) for line in lines), cell.id
    by_id = {cell.id: cell for cell in notebook.cells}
    assert by_id["setup"].source == "import math  #@save\n\nSCALE = 2  #@save"
    assert by_id["title"].source == source.cells[0].source  # shared markdown as it is
    if framework.name == "jax":
        assert by_id["note-jax"].source == "JAX arrays are immutable.\n\n:::{note}\nA fenced note.\n:::"
        assert by_id["note-jax"].cell_type == "markdown"
    if framework.name == "pytorch":
        assert by_id["double"].metadata["tags"] == ["hide-input"]  # tags are kept
    assert notebook.metadata["kernelspec"] == source.metadata["kernelspec"]
    assert notebook.metadata["d2l"]["generated_from"] == PAGE.as_posix()
    assert notebook.metadata["d2l"]["framework"] == framework.name


@pytest.mark.parametrize("framework", FRAMEWORKS, ids=framework_ids)
def test_stored_outputs_are_kept_and_cells_numbered_as_one_run(synthetic_book: Path, framework: Framework):
    notebook = derived(synthetic_book, framework)
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    assert [cell.execution_count for cell in code] == list(range(1, len(code) + 1))
    printed = {cell.id: "".join(output.text for output in cell.outputs) for cell in code}
    expected = {
        "pytorch": {"install": "", "setup": "", "double": "", "pair": "6\n", "shared-print": "3.14\n"},
        "jax": {"install": "", "setup": "", "double-jax": "4\n", "pair": "6\n", "shared-print": "3.14\n"},
        "tensorflow": {"install": "", "setup": "", "double-tf": "4\n", "pair-tf": "6\n", "shared-print": "3.14\n"},
    }
    assert printed == expected[framework.name]


def test_the_source_page_is_left_as_it_is(synthetic_book: Path):
    before = (synthetic_book / PAGE).read_bytes()
    for framework in FRAMEWORKS:
        derived(synthetic_book, framework)
    assert (synthetic_book / PAGE).read_bytes() == before


def test_each_language_and_framework_has_its_folder(synthetic_book: Path):
    project = Project(synthetic_book)
    source = synthetic_book / "chapters" / "id" / "tabs.ipynb"
    assert (
        derive.derived_path(source, by_name("jax"), project)
        == synthetic_book / "notebooks" / "id" / "jax" / "tabs.ipynb"
    )
    assert sorted(project.relative(path) for path in derive.expected_notebooks(project)) == sorted(
        f"notebooks/{language}/{framework.name}/tabs.ipynb" for language in ("en", "id") for framework in FRAMEWORKS
    )


def test_a_malformed_group_stops_derivation_naming_notebook_and_cell(synthetic_book: Path):
    path = synthetic_book / PAGE
    notebook = nbformat.read(path, as_version=4)
    notebook.cells = [cell for cell in notebook.cells if cell.id != "double-tf"]
    nbformat.write(notebook, path)
    with pytest.raises(
        ValueError,
        match=r"chapters/en/tabs\.ipynb.*cell double: "
        r"the tab group starting here has no cell for tensorflow",
    ):
        derived(synthetic_book, by_name("pytorch"))


# The install cell --------------------------------------------------------------------


def install_command(cell: nbformat.NotebookNode, *, present: bool) -> list | None:
    """Run an install cell with ``d2l_lib`` present or missing (and pip replaced by a recorder);
    return the pip command it ran, if any."""
    commands: list[list[str]] = []
    real_find_spec = importlib.util.find_spec

    def find_spec(name: str, *args: object):
        return (real_find_spec("json") if present else None) if name == "d2l_lib" else real_find_spec(name, *args)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(importlib.util, "find_spec", find_spec)
        patch.setattr(subprocess, "run", lambda command, **kwargs: commands.append(command))
        exec(compile(cell.source, "install-cell", "exec"), {})
    assert len(commands) <= 1
    return commands[0] if commands else None


@pytest.mark.parametrize("framework", FRAMEWORKS, ids=framework_ids)
def test_the_install_cell_installs_the_books_release_with_the_frameworks_extra(
    synthetic_book: Path, synthetic_release: tuple[str, str], framework: Framework, monkeypatch: pytest.MonkeyPatch
):
    url, version = synthetic_release
    cell = derived(synthetic_book, framework).cells[0]
    assert (cell.id, cell.cell_type, cell.outputs) == ("install", "code", [])
    assert cell.source == derive.install_cell(framework, Project(synthetic_book)).source
    monkeypatch.delenv("D2L_LIB_SOURCE", raising=False)
    assert install_command(cell, present=False) == [
        sys.executable,
        "-m",
        "pip",
        "install",
        "--quiet",
        f"d2l_lib[{framework.extra}] @ git+{url}@v{version}",
    ]
    assert install_command(cell, present=True) is None


def test_d2l_lib_source_replaces_the_release(synthetic_book: Path, monkeypatch: pytest.MonkeyPatch):
    cell = derived(synthetic_book, by_name("tensorflow")).cells[0]
    monkeypatch.setenv("D2L_LIB_SOURCE", "file:///somewhere/checkout")
    assert install_command(cell, present=False)[-1] == "d2l_lib[tensorflow] @ file:///somewhere/checkout"


def test_a_library_without_a_version_is_an_error(synthetic_book: Path):
    (synthetic_book / "d2l_lib" / "__init__.py").write_text('"""No version."""\n')
    with pytest.raises(ValueError, match="d2l_lib/__init__.py has no __version__"):
        derived(synthetic_book, by_name("pytorch"))


# Drift: --check ---------------------------------------------------------------------------


def test_check_reports_a_hand_edit_a_missing_an_outdated_and_an_orphan_notebook(synthetic_book: Path):
    book, project = synthetic_book, Project(synthetic_book)
    written = derive.write(project)
    assert len(written) == 6 and derive.differences(derive.expected_notebooks(project), project) == []
    edited = book / "notebooks/en/jax/tabs.ipynb"
    notebook = nbformat.read(edited, as_version=4)
    notebook.cells[3].source += "\nprint('edited in Jupyter')"
    nbformat.write(notebook, edited)
    (book / "notebooks/id/tensorflow/tabs.ipynb").unlink()
    orphan = book / "notebooks/en/pytorch/renamed-page.ipynb"
    orphan.write_text((book / "notebooks/en/pytorch/tabs.ipynb").read_text())
    (book / "notebooks/en/pytorch/.ipynb_checkpoints").mkdir()
    (book / "notebooks/en/pytorch/.ipynb_checkpoints/tabs-checkpoint.ipynb").write_text("{}")
    source = book / "chapters/id/tabs.ipynb"
    page = nbformat.read(source, as_version=4)
    page.cells[-1].source = "Changed in the source page."
    nbformat.write(page, source)

    problems = derive.differences(derive.expected_notebooks(project), project)
    assert sorted(problems) == sorted(
        [
            "notebooks/en/jax/tabs.ipynb differs from its source page",
            "notebooks/id/tensorflow/tabs.ipynb is missing",
            "notebooks/id/pytorch/tabs.ipynb differs from its source page",
            "notebooks/id/jax/tabs.ipynb differs from its source page",
            "notebooks/en/pytorch/renamed-page.ipynb has no source page",
        ]
    )
    derive.write(project)
    assert not orphan.exists()
    assert derive.differences(derive.expected_notebooks(project), project) == []


def test_the_commands_write_and_check(synthetic_book: Path):
    checked = run_derive(synthetic_book, "--check")
    assert checked.returncode == 1
    assert checked.stderr.splitlines()[0] == "notebooks/ and the source pages differ (run `make notebooks`):"
    assert "- notebooks/en/pytorch/tabs.ipynb is missing" in checked.stderr.splitlines()
    written = run_derive(synthetic_book)
    assert (written.returncode, written.stdout) == (
        0,
        "wrote 6 notebooks under notebooks/\n",
    )
    checked = run_derive(synthetic_book, "--check")
    assert (checked.returncode, checked.stdout) == (0, "notebooks/ matches the source pages\n")


def test_the_command_fails_on_a_malformed_group_naming_notebook_and_cell(synthetic_book: Path):
    path = synthetic_book / PAGE
    notebook = nbformat.read(path, as_version=4)
    notebook.cells = [cell for cell in notebook.cells if cell.id != "pair-tf"]
    nbformat.write(notebook, path)
    result = run_derive(synthetic_book)
    assert result.returncode == 2
    assert result.stderr.startswith("make notebooks: ")
    assert "chapters/en/tabs.ipynb" in result.stderr
    assert "cell pair: the tab group starting here has no cell for tensorflow" in result.stderr


# Byte-stable ---------------------------------------------------------------------------------


def test_derivation_is_byte_stable(synthetic_book: Path):
    project = Project(synthetic_book)
    first = derive.expected_notebooks(project)
    assert derive.expected_notebooks(project) == first
    derive.write(project)
    stamps = {path: path.stat().st_mtime_ns for path in first}
    derive.write(project)
    assert {path: path.stat().st_mtime_ns for path in first} == stamps  # unchanged files are not rewritten
    for path, text in first.items():
        assert path.read_text(encoding="utf-8") == text
        assert derive.render(nbformat.reads(text, as_version=4)) == text  # as Jupyter saves it back


def test_derivation_does_not_depend_on_the_hash_seed(synthetic_book: Path, tmp_path: Path):
    outputs = []
    for seed in ("1", "2"):
        assert run_derive(synthetic_book, seed=seed).returncode == 0
        outputs.append(
            {
                path.relative_to(synthetic_book): path.read_bytes()
                for path in sorted((synthetic_book / "notebooks").rglob("*.ipynb"))
            }
        )
        for path in (synthetic_book / "notebooks").rglob("*.ipynb"):
            path.unlink()
    assert outputs[0] == outputs[1] and len(outputs[0]) == 6


def test_every_derived_notebook_is_valid_json_ending_in_a_newline(synthetic_book: Path):
    for path, text in derive.expected_notebooks(Project(synthetic_book)).items():
        assert text.endswith("}\n") and not text.endswith("\n\n"), path
        nbformat.validate(nbformat.reads(text, as_version=4))
