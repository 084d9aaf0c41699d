"""Colab: the install cell of every derived notebook, and each framework's chapter run the way
Colab runs it.

The Colab buttons open ``notebooks/<lang>/<framework>/<page>.ipynb``, whose first
cell (``booktools.derive.notebooks``) installs ``d2l_lib[<extra>]`` when it is missing. The
simulation copies one framework's chapter notebook alone into an empty folder and
runs it (nbclient) in a virtual environment holding only what Colab has for that
framework (``COLAB_PACKAGES``) and ``d2l_lib`` not. Its install cell must install
``d2l_lib`` with the framework's extra, here from the local checkout
(``D2L_LIB_SOURCE=file://...``) as a clone has it (the files git tracks or would
track, copied to a scratch folder so that pip's build leaves the work tree alone),
without adding any other package, and every cell must run; each exercise's check
must report the starter as failing and the solution as passing. Each environment is
made once in ``_build/colab-venv-<framework>`` (the frameworks take minutes to
unpack; ``tools/pip_install.py`` installs them, with uv where the book's environment
has it), remade only when its pins change, and ``d2l_lib`` is uninstalled from it
before each run.
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import re
import shutil
import subprocess
import sys
import threading
import venv
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import nbformat
import pytest
import yaml
from filelock import FileLock
from jupyter_client.kernelspec import KernelSpecManager
from jupyter_client.manager import KernelManager
from nbclient import NotebookClient

from booktools.derive import notebooks as derive
from booktools.project import Project
from booktools.sources.exercises import CHECK_TAG
from booktools.sources.frameworks import FRAMEWORKS, Framework

PROJECT = Project.here()
CONFIG = yaml.safe_load(PROJECT.config_file.read_text(encoding="utf-8"))
VERSION = derive.library_version(PROJECT)
DERIVED = [
    (derive.derived_path(source, framework, PROJECT), framework)
    for code in PROJECT.editions()
    for source in PROJECT.source_pages(code)
    for framework in FRAMEWORKS
]
# What Colab has for each framework, under the names Colab installs them by: its TensorFlow
# is the `tensorflow` package, which the book's environment has as `tensorflow-cpu`.
COLAB_PACKAGES = {
    "pytorch": ("torch", "numpy", "matplotlib", "ipykernel"),
    "jax": ("jax", "jaxlib", "flax", "numpy", "matplotlib", "ipykernel"),
    "tensorflow": ("tensorflow", "numpy", "matplotlib", "ipykernel"),
}
PINNED_AS = {"tensorflow": "tensorflow-cpu"}
OTHER_FRAMEWORKS = {
    "pytorch": {"jax", "jaxlib", "flax", "tensorflow", "tensorflow-cpu"},
    "jax": {"torch", "tensorflow", "tensorflow-cpu"},
    "tensorflow": {"torch", "jax", "jaxlib", "flax", "tensorflow-cpu"},
}
NOT_ON_COLAB = {"d2l-lib", "d2l", "jupyter-book", "sphinx", "pytest", "nbval"}
KERNEL = "colab-simulation"
# pip install, done by the book environment's uv from the package sources of pip's configuration
# (pip without uv): the environments hold what pip would install in them, made in a fraction of the time.
INSTALL = PROJECT.root / "tools" / "pip_install.py"
CHAPTER = "attention-scoring-functions.ipynb"


def framework_ids(framework: Framework) -> str:
    return framework.name


def normalized(name: str) -> str:
    """A distribution name as pip compares them (PEP 503)."""
    return re.sub(r"[-_.]+", "-", name).lower()


def colab_venv(framework: Framework) -> Path:
    """The folder of the simulated Colab environment of ``framework``."""
    return PROJECT.work_dir(f"colab-venv-{framework.name}")


def chapter_notebook(framework: Framework) -> Path:
    """The chapter notebook of ``framework`` that Colab opens (English edition)."""
    return PROJECT.notebooks_dir / "en" / framework.name / CHAPTER


# The install cell -------------------------------------------------------------------------------


@pytest.mark.parametrize(("path", "framework"), DERIVED, ids=[PROJECT.relative(path) for path, _ in DERIVED])
def test_the_install_cell_pins_the_books_repository_version_and_extra(path: Path, framework: Framework):
    assert path.exists(), f"{PROJECT.relative(path)} is missing; run `make notebooks`"
    cell = nbformat.read(path, as_version=4).cells[0]
    url = CONFIG["repository"]["url"].rstrip("/")
    assert (cell.get("id"), cell.cell_type) == ("install", "code"), "the install cell must come first"
    assert f"'git+{url}@v{VERSION}'" in cell.source, (
        f"the install cell must install git+{url}@v{VERSION} (repository.url of _config.yml, "
        "version of d2l_lib/__init__.py)"
    )
    assert f"d2l_lib[{framework.extra}] @ {{source}}" in cell.source
    assert "find_spec('d2l_lib') is None" in cell.source
    assert "os.environ.get('D2L_LIB_SOURCE'" in cell.source
    assert cell.source == derive.install_cell(framework, PROJECT).source


# The simulated Colab --------------------------------------------------------------------------------


def requirement_pins() -> dict[str, str]:
    """``normalized name -> version`` of every ``name==version`` line of requirements.txt."""
    pins = {}
    for line in (PROJECT.root / "requirements.txt").read_text(encoding="utf-8").splitlines():
        match = re.match(r"^([A-Za-z0-9_.-]+)==(\S+)", line.strip())
        if match:
            pins[normalized(match.group(1))] = match.group(2)
    return pins


def pinned(framework: Framework) -> list[str]:
    """Colab's packages of ``framework`` as ``name==version``: the version requirements.txt pins
    (for ``tensorflow``, that of ``tensorflow-cpu``), else the one the book's environment has."""
    pins = requirement_pins()
    requirements = []
    for name in COLAB_PACKAGES[framework.name]:
        source = normalized(PINNED_AS.get(name, name))
        version = pins.get(source)
        if version is None:
            try:
                version = importlib.metadata.version(source).split("+")[0]
            except importlib.metadata.PackageNotFoundError:
                version = None
        requirements.append(f"{name}=={version}" if version else name)
    return requirements


def installed(python: Path) -> set[str]:
    """The normalized names of the distributions installed for ``python``."""
    listed = subprocess.run(
        [str(python), "-m", "pip", "list", "--format=json"], capture_output=True, text=True, check=True
    )
    return {normalized(package["name"]) for package in json.loads(listed.stdout)}


def installer_environment() -> dict[str, str]:
    """The environment of ``INSTALL``: uv is the book environment's (beside this Python), if it has one."""
    return {**os.environ, "UV": str(Path(sys.executable).parent / "uv")}


SPAWNING = threading.Lock()
"""Held by a thread of ``colab_venvs`` while it makes a virtual environment or starts a process."""


def make_colab_venv(framework: Framework) -> Path:
    """The Python of the simulated Colab of ``framework``, made if missing or made from other pins.

    One process at a time (a file lock beside the folder), should two pytest processes ask at once.
    """
    folder = colab_venv(framework)
    python = folder / "bin" / "python"
    packages = pinned(framework)
    stamp = folder / "colab-packages.json"
    folder.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(folder.with_name(f"{folder.name}.lock")):
        if not (python.exists() and stamp.exists() and json.loads(stamp.read_text()) == packages):
            shutil.rmtree(folder, ignore_errors=True)
            # The threads of ``colab_venvs`` take turns to copy a Python and to start a process:
            # a process forked while another thread writes its new Python holds that file open
            # for writing until it executes, and running the new Python then fails with
            # "[Errno 26] Text file busy" (it did, on a clean clone). The installs run at once.
            with SPAWNING:
                venv.EnvBuilder(with_pip=True, clear=True).create(folder)
                command = [str(python), str(INSTALL), "--quiet", *packages]
                install = subprocess.Popen(command, env=installer_environment())
            if install.wait() != 0:
                raise subprocess.CalledProcessError(install.returncode, install.args)
            stamp.write_text(json.dumps(packages))
    return python


@pytest.fixture(scope="module")
def colab_venvs() -> None:
    """Make the three environments at once: unpacking the frameworks is most of the time, and
    three pip processes share the machine's cores better than one after another."""
    with ThreadPoolExecutor(max_workers=len(FRAMEWORKS)) as pool:
        list(pool.map(make_colab_venv, FRAMEWORKS))


def colab_python(framework: Framework) -> Path:
    """The Python of the simulated Colab of ``framework`` (made if needed), with ``d2l_lib`` uninstalled."""
    python = make_colab_venv(framework)
    subprocess.run(
        [str(python), "-m", "pip", "uninstall", "--quiet", "--yes", "d2l_lib"], check=False, capture_output=True
    )
    return python


def checkout(target: Path) -> Path:
    """Copy the files of the work tree that a clone would have (tracked, or new and not ignored).

    Without git (a source archive), the checkout itself is the install source.
    """
    try:
        listed = subprocess.run(
            ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            cwd=PROJECT.root,
            capture_output=True,
            check=True,
        )
    except (OSError, subprocess.CalledProcessError):
        return PROJECT.root
    for name in filter(None, listed.stdout.decode().split("\0")):
        source = PROJECT.root / name
        if source.is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)
    return target


def kernel_environment(python: Path, source: str) -> dict[str, str]:
    """The kernel's environment: the Colab venv first on PATH, nothing of the book's own
    (nor a figure backend the caller exported), ``D2L_LIB_SOURCE`` set to ``source``."""
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in {"PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "PYTHONSTARTUP", "MPLBACKEND"}
    }
    env["PATH"] = f"{python.parent}{os.pathsep}{env.get('PATH', '')}"
    env["D2L_LIB_SOURCE"] = source
    env["PYTHONHASHSEED"] = "0"
    return env


def probe(python: Path, code: str, folder: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(python), "-c", code],
        cwd=folder,
        capture_output=True,
        text=True,
        env=kernel_environment(python, ""),
        check=False,
    )


@pytest.mark.parametrize("framework", FRAMEWORKS, ids=framework_ids)
@pytest.mark.usefixtures("colab_venvs")
def test_the_chapter_alone_runs_in_a_colab_like_environment(tmp_path: Path, framework: Framework):
    chapter = chapter_notebook(framework)
    assert chapter.exists(), f"{PROJECT.relative(chapter)} is missing; run `make notebooks`"
    python = colab_python(framework)
    before = installed(python)
    source = checkout(tmp_path / "checkout")
    folder = tmp_path / "content"
    folder.mkdir()
    notebook_path = Path(shutil.copy2(chapter, folder / chapter.name))
    assert sorted(path.name for path in folder.iterdir()) == [chapter.name]
    missing = probe(python, "import importlib.util as u; print(u.find_spec('d2l_lib') is None)", folder)
    assert missing.stdout.strip() == "True", "d2l_lib must not be installed before the notebook runs"

    kernels = tmp_path / "kernels"
    (kernels / KERNEL).mkdir(parents=True)
    (kernels / KERNEL / "kernel.json").write_text(
        json.dumps(
            {
                "argv": [str(python), "-m", "ipykernel_launcher", "-f", "{connection_file}"],
                "display_name": "Colab simulation",
                "language": "python",
            }
        )
    )
    manager = KernelManager(kernel_name=KERNEL, kernel_spec_manager=KernelSpecManager(kernel_dirs=[str(kernels)]))
    notebook = nbformat.read(notebook_path, as_version=4)
    client = NotebookClient(
        notebook,
        km=manager,
        kernel_name=KERNEL,
        timeout=900,
        allow_errors=False,
        resources={"metadata": {"path": str(folder)}},
    )
    try:
        client.execute(env=kernel_environment(python, source.as_uri()))
    finally:
        # nbclient leaves a kernel manager it was given running (until the process exits):
        # the kernel is stopped here, also when a cell failed.
        if manager.has_kernel:
            manager.shutdown_kernel(now=True)

    errors = [
        output
        for cell in notebook.cells
        if cell.cell_type == "code"
        for output in cell.outputs
        if output.output_type == "error"
    ]
    assert errors == []
    ran = [cell.execution_count for cell in notebook.cells if cell.cell_type == "code"]
    assert all(count is not None for count in ran) and len(ran) > 1
    # Each exercise's check ran twice: on the starter (it reports, and fails) and on the solution.
    verdicts = {cell.id: _verdict(cell) for cell in notebook.cells if CHECK_TAG in cell.metadata.get("tags", [])}
    starters = {cell_id: verdict for cell_id, verdict in verdicts.items() if cell_id.startswith("exercise-")}
    solutions = {cell_id: verdict for cell_id, verdict in verdicts.items() if cell_id.startswith("solution-")}
    assert len(starters) == len(solutions) >= 4, verdicts
    assert set(starters.values()) == {"passed=False"}, starters
    assert set(solutions.values()) == {"passed=True"}, solutions
    found = probe(
        python,
        f"import d2l_lib, d2l_lib.{framework.module}, sys; print(d2l_lib.__version__); print(d2l_lib.__file__)",
        folder,
    )
    version, location = found.stdout.split()
    assert version == VERSION
    assert Path(location).is_relative_to(colab_venv(framework)), "d2l_lib must come from the install cell"
    assert installed(python) - before == {"d2l-lib"}, f"d2l_lib[{framework.extra}] must need nothing Colab lacks"


def _verdict(cell: nbformat.NotebookNode) -> str:
    """The verdict a check cell returned (``passed=True`` or ``passed=False``), from its result's repr."""
    results = [output for output in cell.outputs if output.output_type == "execute_result"]
    assert len(results) == 1, f"{cell.id}: a check cell returns one result"
    found = re.search(r"passed=(True|False)", results[0].data["text/plain"])
    assert found, results[0].data["text/plain"]
    return found.group(0)


@pytest.mark.parametrize("framework", FRAMEWORKS, ids=framework_ids)
@pytest.mark.usefixtures("colab_venvs")
def test_the_simulated_colab_holds_only_its_packages(framework: Framework):
    python = colab_python(framework)
    names = installed(python)
    assert {normalized(name) for name in COLAB_PACKAGES[framework.name]} <= names
    assert not names & NOT_ON_COLAB
    assert not names & OTHER_FRAMEWORKS[framework.name]
    assert Path(sys.prefix) != colab_venv(framework)
