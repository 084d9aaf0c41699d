"""docs/architecture.md names every module of booktools/, every verb of ``python -m booktools`` and every make target.

Each list is read from the tree (the files under ``booktools/``, ``VERBS`` in
``booktools/__main__.py``, the Makefile's ``.PHONY``), so a module, verb or target added,
moved or removed fails here, named, until the document says so.

Each package's map, the ``- ``name``:`` lines of its ``__init__`` docstring, names every module
(``name``) and subpackage (``name/``) in the package's folder and nothing else, read from the tree
the same way.
"""

from __future__ import annotations

import ast
import re

import pytest

from booktools.__main__ import VERBS
from booktools.project import TOOLS, Project

PROJECT = Project.here()
DOCUMENT = PROJECT.root / "docs" / "architecture.md"
PACKAGE = PROJECT.root / TOOLS
FIRST_CELL = re.compile(r"^\|\s*`([^`]+)`\s*\|", re.MULTILINE)
MAKE_TARGET = re.compile(r"`make ([a-z][a-z-]*)")
PHONY = re.compile(r"^\.PHONY:(.*)$", re.MULTILINE)


def section(title: str) -> str:
    """The text of the document's ``## title`` section, up to the next heading of its level."""
    text = DOCUMENT.read_text(encoding="utf-8")
    start = text.index(f"\n## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start : end if end != -1 else len(text)]


@pytest.fixture(scope="module")
def named_modules() -> set[str]:
    """The first cells of the module tables, paths under ``booktools/`` (files and folders)."""
    return set(FIRST_CELL.findall(section("Modules, one job each").split("\n### Benchmarks")[0]))


def test_every_module_is_named(named_modules):
    modules = {path.relative_to(PACKAGE).as_posix() for path in PACKAGE.rglob("*.py")}
    missing = sorted(modules - named_modules)
    assert not missing, f"docs/architecture.md does not name these modules of booktools/: {missing}"


def test_every_named_module_exists(named_modules):
    gone = sorted(name for name in named_modules if not (PACKAGE / name.rstrip("/")).exists())
    assert not gone, f"docs/architecture.md names modules that booktools/ does not have: {gone}"


def test_every_verb_is_in_the_verb_table():
    named = {name.strip() for name in FIRST_CELL.findall(section("The spine: one command line, one `Project`"))}
    verbs = {verb.name for verb in VERBS}
    assert not verbs - named, f"docs/architecture.md's verb table lacks: {sorted(verbs - named)}"
    assert not named - verbs, f"docs/architecture.md's verb table names no such verb: {sorted(named - verbs)}"


def test_every_make_target_is_named():
    makefile = (PROJECT.root / "Makefile").read_text(encoding="utf-8")
    targets = set(" ".join(PHONY.findall(makefile)).split())
    named = set(MAKE_TARGET.findall(DOCUMENT.read_text(encoding="utf-8")))
    assert not targets - named, f"docs/architecture.md does not name these make targets: {sorted(targets - named)}"
    assert not named - targets, f"docs/architecture.md names make targets that do not exist: {sorted(named - targets)}"


MAP_ENTRY = re.compile(r"^- ``([A-Za-z_]\w*/?)``:", re.MULTILINE)
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
