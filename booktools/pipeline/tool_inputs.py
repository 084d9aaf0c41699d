"""What of the tools a stage reads: the modules of ``booktools`` it runs, and the environment they run in.

A stage runs some modules of ``booktools`` (its entry modules and every module they import,
directly or not, found by reading their imports) and the files beside them (templates,
styles, scripts, npm locks: every file that is not Python under the folders of those
modules). So a change to ``checks/`` or ``servers/`` rebuilds no site, and a change to a
template of the theme rebuilds every edition's site.

The environment counts too: the Python distributions a stage's code imports, and every
distribution they require, by name and version (:func:`distributions`; for the slides,
every distribution of ``.venv-d2lbook``), and the version of Node (KaTeX) or the path and
size of Chromium (the PDFs, the audit). After an upgrade of Sphinx, the theme or d2lbook,
the stages that use them run again; an upgrade of ruff or mypy, which no stage imports,
rebuilds nothing.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import re
import shutil
import subprocess
import sys
import sysconfig
from importlib import metadata
from pathlib import Path

from booktools.project import TOOLS, Project

PACKAGE = TOOLS  # the folder the modules of booktools are in, under the project's root


def _module_file(root: Path, module: str) -> Path | None:
    """The file of a dotted module under ``root`` (a package's ``__init__.py``), None if there is none."""
    path = root.joinpath(*module.split("."))
    for candidate in (path.with_suffix(".py"), path / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def _imports(file: Path) -> frozenset[str]:
    """The modules of ``booktools`` a module imports, wherever in it (``from X import y`` may name a module y)."""
    status = file.stat()
    return _parsed_imports(file, status.st_mtime_ns, status.st_size)


@functools.lru_cache(maxsize=1024)
def _parsed_imports(file: Path, mtime_ns: int, size: int) -> frozenset[str]:
    """:func:`_imports`, parsed once per run while the file's time and size stay."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(file.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == PACKAGE:
            found.add(node.module)
            found |= {f"{node.module}.{alias.name}" for alias in node.names}
        elif isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names if alias.name.split(".")[0] == PACKAGE}
    return frozenset(found)


def module_file(project: Project, module: str) -> Path:
    """The file of one dotted module of booktools, alone (a package's ``__init__.py``).

    Raises:
        ValueError: if the project holds no such module.
    """
    file = _module_file(project.root, module)
    if file is None:
        raise ValueError(f"{module} is not a module under {project.root}")
    return file


def module_files(project: Project, *modules: str) -> list[Path]:
    """The files of ``modules`` and of every module of booktools they import, with the data files beside them."""
    seen: set[Path] = set()
    names: set[str] = set()
    todo = list(modules)
    while todo:
        name = todo.pop()
        parts = name.split(".")
        for depth in range(2, len(parts) + 1):  # a module's packages run their __init__.py first
            prefix = ".".join(parts[:depth])
            if prefix in names:
                continue
            names.add(prefix)
            file = _module_file(project.root, prefix)
            if file is not None and file not in seen:
                seen.add(file)
                todo += sorted(_imports(file))
    data = [path for folder in sorted({file.parent for file in seen}) for path in _data_files(folder)]
    return sorted(seen | set(data))


def _data_files(folder: Path) -> list[Path]:
    """The files under a package's folder that are not Python and not another package's."""
    return [
        path
        for path in folder.rglob("*")
        if path.suffix != ".py"
        and "__pycache__" not in path.parts
        and path.is_file()
        and not _in_subpackage(path, folder)
    ]


def _in_subpackage(path: Path, folder: Path) -> bool:
    """Whether ``path`` is inside a Python package nested in ``folder`` (its data belongs to that package)."""
    return any((parent / "__init__.py").is_file() for parent in path.parents if folder in parent.parents)


def third_party_imports(files: list[Path]) -> set[str]:
    """The top-level names of the modules outside booktools that the Python ``files`` import."""
    found: set[str] = set()
    for file in files:
        if file.suffix == ".py":
            found |= _parsed_third_party(file, file.stat().st_mtime_ns)
    return found - set(sys.stdlib_module_names) - {PACKAGE, "__future__"}


@functools.lru_cache(maxsize=1024)
def _parsed_third_party(file: Path, mtime_ns: int) -> frozenset[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(file.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.add(node.module.split(".")[0])
        elif isinstance(node, ast.Import):
            found |= {alias.name.split(".")[0] for alias in node.names}
    return frozenset(found)


def _requirement_name(requirement: str) -> str:
    return re.split(r"[\s;<>=!~\[(]", requirement, maxsplit=1)[0].lower().replace("_", "-")


@functools.cache
def _installed() -> dict[str, metadata.Distribution]:
    """The distributions installed in the running environment's site-packages, by normalised name.

    Only there: what else is on ``sys.path`` depends on the caller (a checkout's own ``*.egg-info``, which
    ``pip install .`` leaves beside the sources, a test's folders), and would change the digest with it.
    """
    places = sorted({sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]})
    found: dict[str, metadata.Distribution] = {}
    for dist in metadata.distributions(path=places):
        found.setdefault(str(dist.metadata["Name"]).lower().replace("_", "-"), dist)  # the first, as imports do
    return found


def distributions(modules: set[str], programs: tuple[str, ...] = ()) -> str:
    """The installed distributions that provide ``modules`` (top-level import names) or are the ``programs``
    a stage runs (``jupyter-book``), and every distribution they require, as sorted ``name==version`` lines."""
    return _distributions(frozenset(modules), programs)


@functools.cache
def _providers() -> dict[str, list[str]]:
    return dict(metadata.packages_distributions())


@functools.cache
def _distributions(modules: frozenset[str], programs: tuple[str, ...]) -> str:
    providers = _providers()
    todo = [name.lower().replace("_", "-") for module in modules for name in providers.get(module, [])]
    todo += list(programs)
    installed, seen = _installed(), set()
    while todo:
        name = todo.pop()
        if name in seen or name not in installed:
            continue
        seen.add(name)
        todo += [_requirement_name(req) for req in installed[name].requires or [] if "extra ==" not in req]
    return "\n".join(sorted(f"{name}=={installed[name].version}" for name in seen))


@functools.cache
def python_environment(prefix: str) -> str:
    """Every distribution installed in another Python environment (``.venv-d2lbook``), as ``name-version`` lines
    (the running environment's count by what a stage imports: :func:`distributions`)."""
    installed = Path(prefix).glob("lib/python*/site-packages/*.dist-info")
    return "\n".join(sorted(folder.name.removesuffix(".dist-info") for folder in installed))


def node_version() -> str:
    """The version of the ``node`` on ``PATH`` that runs KaTeX ("" when there is none), asked once per program."""
    node = shutil.which("node")
    return "" if node is None else _version_of(str(Path(node).resolve()))


@functools.cache
def _version_of(program: str) -> str:
    return subprocess.run([program, "--version"], capture_output=True, text=True, check=False).stdout.strip()


def file_identity(path: Path) -> str:
    """A program's identity without running it: its resolved path and size ("" when it is missing)."""
    resolved = path.resolve()
    return f"{resolved} {resolved.stat().st_size}" if resolved.is_file() else ""


def environment_digest(*facts: str) -> str:
    """One digest of the environment's facts (``distributions(...)``, ``node_version()``, ...)."""
    return hashlib.sha256("\0".join([sys.version, *facts]).encode()).hexdigest()
