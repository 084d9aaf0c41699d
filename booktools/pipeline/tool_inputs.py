"""What of the tools a stage reads: the modules of ``booktools`` it runs, and the environment they run in.

A stage runs some modules of ``booktools`` (its entry modules and every module they import,
directly or not, found by reading their imports) and the files beside them (templates,
styles, scripts, npm locks: every file that is not Python under the folders of those
modules). So a change to ``checks/`` or ``servers/`` rebuilds no site, and a change to a
template of the theme rebuilds every edition's site.

The environment counts too: the distributions installed in the Python that runs the
build (and, for the slides, in ``.venv-d2lbook``), by name and version, and the version of
Node (KaTeX) or the path and size of Chromium (the PDFs). After an upgrade of Sphinx, the
theme or d2lbook, the stages that use them run again.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import shutil
import subprocess
import sys
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


def module_files(project: Project, *modules: str) -> list[Path]:
    """The files of ``modules`` and of every module of booktools they import, with the data files beside them."""
    seen: set[Path] = set()
    todo = list(modules)
    while todo:
        name = todo.pop()
        parts = name.split(".")
        for depth in range(2, len(parts) + 1):  # a module's packages run their __init__.py first
            file = _module_file(project.root, ".".join(parts[:depth]))
            if file is not None and file not in seen:
                seen.add(file)
                todo += sorted(_imports(file))
    folders = {file.parent for file in seen}
    data = {
        path
        for folder in folders
        for path in folder.rglob("*")
        if path.is_file()
        and path.suffix != ".py"
        and "__pycache__" not in path.parts
        and not _in_subpackage(path, folder)
    }
    return sorted(seen | data)


def _in_subpackage(path: Path, folder: Path) -> bool:
    """Whether ``path`` is inside a Python package nested in ``folder`` (its data belongs to that package)."""
    return any((parent / "__init__.py").is_file() for parent in path.parents if folder in parent.parents)


@functools.cache
def python_environment(prefix: str | None = None) -> str:
    """The distributions installed in a Python environment (default: the running one), as ``name==version`` lines."""
    if prefix is None:
        found = {f"{dist.metadata['Name']}=={dist.version}" for dist in metadata.distributions()}
    else:
        found = {
            folder.name.removesuffix(".dist-info")
            for folder in Path(prefix).glob("lib/python*/site-packages/*.dist-info")
        }
    return "\n".join(sorted(found))


@functools.cache
def node_version() -> str:
    """The version of the ``node`` that runs KaTeX ("" when there is none)."""
    node = shutil.which("node")
    if node is None:
        return ""
    return subprocess.run([node, "--version"], capture_output=True, text=True, check=False).stdout.strip()


def file_identity(path: Path) -> str:
    """A program's identity without running it: its resolved path and size ("" when it is missing)."""
    resolved = path.resolve()
    return f"{resolved} {resolved.stat().st_size}" if resolved.is_file() else ""


def environment_digest(*facts: str) -> str:
    """One digest of the environment's facts (``python_environment()``, ``node_version()``, ...)."""
    return hashlib.sha256("\0".join([sys.version, *facts]).encode()).hexdigest()
