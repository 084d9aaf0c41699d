"""docs/architecture.md names every make target, and each package's map names every module of the package.

The modules and verbs are the document's generated tables (``tests/tooling/test_doc_tables.py`` holds them
current); the make targets are read from the Makefile's ``.PHONY``, so a target added or removed fails here,
named, until the document says so.

Each package's map, the ``- ``name``:`` lines of its ``__init__`` docstring, names every module
(``name``, with its job) and subpackage (``name/``, whose job is its own docstring's first paragraph) in the
package's folder and nothing else, read from the tree.
"""

from __future__ import annotations

import ast
import re

import pytest

from booktools.project import TOOLS, Project

PROJECT = Project.here()
DOCUMENT = PROJECT.root / "docs" / "architecture.md"
PACKAGE = PROJECT.root / TOOLS
MAKE_TARGET = re.compile(r"`make ([a-z][a-z-]*)")
PHONY = re.compile(r"^\.PHONY:(.*)$", re.MULTILINE)


def test_every_make_target_is_named():
    makefile = (PROJECT.root / "Makefile").read_text(encoding="utf-8")
    targets = set(" ".join(PHONY.findall(makefile)).split())
    named = set(MAKE_TARGET.findall(DOCUMENT.read_text(encoding="utf-8")))
    assert not targets - named, f"docs/architecture.md does not name these make targets: {sorted(targets - named)}"
    assert not named - targets, f"docs/architecture.md names make targets that do not exist: {sorted(named - targets)}"


MAP_ENTRY = re.compile(r"^- ``([A-Za-z_]\w*/?)``(?::|$)", re.MULTILINE)
SUBPACKAGE_JOB = re.compile(r"^- ``([A-Za-z_]\w*/)``:", re.MULTILINE)
PACKAGES = sorted(init.parent for init in PACKAGE.rglob("__init__.py"))


def package_contents(package) -> set[str]:
    """The modules of ``package`` (``name``) and its subpackages (``name/``), read from the tree."""
    modules = {path.stem for path in package.glob("*.py") if path.name != "__init__.py"}
    packages = {f"{path.parent.name}/" for path in package.glob("*/__init__.py")}
    return modules | packages


def package_map(package) -> set[str]:
    """The names the package's map lists: each line ``- ``name``:`` of its ``__init__.py`` docstring."""
    docstring = ast.get_docstring(ast.parse((package / "__init__.py").read_text(encoding="utf-8"))) or ""
    return set(MAP_ENTRY.findall(docstring))


@pytest.mark.parametrize("package", PACKAGES, ids=lambda package: package.relative_to(PROJECT.root).as_posix())
def test_every_package_map_is_complete_and_true(package):
    contents, named = package_contents(package), package_map(package)
    where = f"{package.relative_to(PROJECT.root).as_posix()}/__init__.py"
    assert not contents - named, f"{where}'s map (``- ``name``:`` lines) lacks: {sorted(contents - named)}"
    assert not named - contents, f"{where}'s map names what the package lacks: {sorted(named - contents)}"
    docstring = ast.get_docstring(ast.parse((package / "__init__.py").read_text(encoding="utf-8"))) or ""
    twice = SUBPACKAGE_JOB.findall(docstring)
    assert not twice, f"{where}'s map gives the jobs of {twice}, which their own docstrings give: name them only"
