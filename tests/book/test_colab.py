"""Colab: the install cell of every notebook, and a notebook run the way Colab runs it.

The simulation copies the chapter notebook alone into an empty folder and runs it
(nbclient) in a virtual environment holding only torch, numpy, matplotlib and
ipykernel, as Colab has them and ``d2l_lib`` not. Its install cell must install
``d2l_lib``, here from the local checkout (``D2L_LIB_SOURCE``) as a clone has it
(the files git tracks or would track, copied to a scratch folder so that pip's
build leaves the work tree alone), and every cell must run. The environment is
made once in ``_build/colab-venv`` (torch alone takes minutes to unpack) and
``d2l_lib`` is uninstalled from it before each run.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import venv
from pathlib import Path

import nbformat
import pytest
import yaml
from jupyter_client.kernelspec import KernelSpecManager
from jupyter_client.manager import KernelManager
from nbclient import NotebookClient

from booktools.book import ROOT, editions, notebooks

CONFIG = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
VERSION = re.search(r'__version__\s*=\s*"([^"]+)"', (ROOT / "d2l_lib" / "__init__.py").read_text()).group(1)
NOTEBOOKS = [path for code in editions() for path in notebooks(code)]
COLAB_PACKAGES = ("torch", "numpy", "matplotlib", "ipykernel")
COLAB_VENV = ROOT / "_build" / "colab-venv"
KERNEL = "colab-simulation"
CHAPTER = ROOT / "chapters" / "en" / "attention-scoring-functions.ipynb"


def install_cell(path: Path) -> nbformat.NotebookNode:
    return next(cell for cell in nbformat.read(path, as_version=4).cells if cell.cell_type == "code")


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda path: path.relative_to(ROOT).as_posix())
def test_the_install_cell_pins_the_books_repository_and_version(path: Path):
    cell = install_cell(path)
    url = CONFIG["repository"]["url"].rstrip("/")
    assert "remove-cell" in cell.metadata.get("tags", []), "the install cell must be hidden in the book"
    assert f"d2l_lib @ git+{url}@v{VERSION}" in cell.source, (
        f"the install cell must install d2l_lib @ git+{url}@v{VERSION} (repository.url of _config.yml, "
        "version of d2l_lib/__init__.py)")
    assert "find_spec('d2l_lib') is None" in cell.source or 'find_spec("d2l_lib") is None' in cell.source
    assert "D2L_LIB_SOURCE" in cell.source


def pinned(names: tuple[str, ...]) -> list[str]:
    """Return ``name==version`` for ``names`` as requirements.txt pins them (or the bare name)."""
    pins = {}
    for line in (ROOT / "requirements.txt").read_text(encoding="utf-8").splitlines():
        match = re.match(r"^([A-Za-z0-9_.-]+)==(\S+)", line.strip())
        if match:
            pins[match.group(1).lower()] = match.group(0)
    return [pins.get(name, name) for name in names]


def colab_python() -> Path:
    """The Python of the simulated Colab environment, made if missing or made from other pins."""
    python = COLAB_VENV / "bin" / "python"
    packages = pinned(COLAB_PACKAGES)
    stamp = COLAB_VENV / "colab-packages.json"
    if not (python.exists() and stamp.exists() and json.loads(stamp.read_text()) == packages):
        shutil.rmtree(COLAB_VENV, ignore_errors=True)
        venv.EnvBuilder(with_pip=True, clear=True).create(COLAB_VENV)
        subprocess.run([str(python), "-m", "pip", "install", "--quiet", *packages], check=True)
        stamp.write_text(json.dumps(packages))
    subprocess.run([str(python), "-m", "pip", "uninstall", "--quiet", "--yes", "d2l_lib"],
                   check=False, capture_output=True)
    return python


def checkout(target: Path) -> Path:
    """Copy the files of the work tree that a clone would have (tracked, or new and not ignored).

    Without git (a source archive), the checkout itself is the install source.
    """
    try:
        listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                                cwd=ROOT, capture_output=True, check=True)
    except (OSError, subprocess.CalledProcessError):
        return ROOT
    for name in filter(None, listed.stdout.decode().split("\0")):
        source = ROOT / name
        if source.is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)
    return target


def kernel_environment(python: Path, source: Path) -> dict[str, str]:
    """The kernel's environment: the Colab venv first on PATH, nothing of the book's own."""
    env = {key: value for key, value in os.environ.items()
           if key not in {"PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "PYTHONSTARTUP"}}
    env["PATH"] = f"{python.parent}{os.pathsep}{env.get('PATH', '')}"
    env["D2L_LIB_SOURCE"] = str(source)
    env["PYTHONHASHSEED"] = "0"
    return env


def probe(python: Path, code: str, folder: Path) -> subprocess.CompletedProcess:
    return subprocess.run([str(python), "-c", code], cwd=folder, capture_output=True, text=True,
                          env=kernel_environment(python, ROOT), check=False)


def test_a_notebook_alone_runs_in_a_colab_like_environment(tmp_path: Path):
    python = colab_python()
    source = checkout(tmp_path / "checkout")
    folder = tmp_path / "content"
    folder.mkdir()
    notebook_path = Path(shutil.copy2(CHAPTER, folder / CHAPTER.name))
    assert sorted(path.name for path in folder.iterdir()) == [CHAPTER.name]
    missing = probe(python, "import importlib.util as u; print(u.find_spec('d2l_lib') is None)", folder)
    assert missing.stdout.strip() == "True", "d2l_lib must not be installed before the notebook runs"

    kernels = tmp_path / "kernels"
    (kernels / KERNEL).mkdir(parents=True)
    (kernels / KERNEL / "kernel.json").write_text(json.dumps({
        "argv": [str(python), "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "Colab simulation", "language": "python"}))
    manager = KernelManager(kernel_name=KERNEL, kernel_spec_manager=KernelSpecManager(kernel_dirs=[str(kernels)]))
    notebook = nbformat.read(notebook_path, as_version=4)
    client = NotebookClient(notebook, km=manager, kernel_name=KERNEL, timeout=900, allow_errors=False,
                            resources={"metadata": {"path": str(folder)}})
    client.execute(env=kernel_environment(python, source))

    errors = [output for cell in notebook.cells if cell.cell_type == "code"
              for output in cell.outputs if output.output_type == "error"]
    assert errors == []
    ran = [cell.execution_count for cell in notebook.cells if cell.cell_type == "code"]
    assert all(count is not None for count in ran) and len(ran) > 1
    installed = probe(python, "import d2l_lib, sys; print(d2l_lib.__version__); print(d2l_lib.__file__)", folder)
    version, location = installed.stdout.split()
    assert version == VERSION
    assert Path(location).is_relative_to(COLAB_VENV), "d2l_lib must come from the install cell, not the checkout"


def test_the_simulated_colab_holds_only_its_packages():
    python = colab_python()
    listed = subprocess.run([str(python), "-m", "pip", "list", "--format=json"], capture_output=True, text=True,
                            check=True)
    names = {package["name"].lower() for package in json.loads(listed.stdout)}
    assert {"torch", "numpy", "matplotlib", "ipykernel"} <= names
    assert not names & {"d2l-lib", "d2l_lib", "d2l", "jupyter-book", "sphinx", "pytest"}
    assert sys.prefix != str(COLAB_VENV)
