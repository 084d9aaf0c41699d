"""The packages of ``booktools`` import each other in one direction, at the top of their modules.

The layers, ``booktools.LAYERS``, from the bottom: what a package may import is below it, never above, so that
a change low down is the only kind that can reach far, and no cycle hides in a function
body. The entry point, ``booktools/__main__.py``, alone imports inside functions: each verb
loads its function's package when it runs, so that ``--help`` does not import every framework.
"""

from __future__ import annotations

import ast
import graphlib
from pathlib import Path

import pytest

from booktools import LAYERS
from booktools.code_facts.tables import package_map
from booktools.project import Project

PACKAGE = Project.here().root / "booktools"
MODULES = sorted(path for path in PACKAGE.rglob("*.py") if "__pycache__" not in path.parts)


def layer(module: str) -> str:
    """The layer of a dotted module name under ``booktools`` (``booktools.website.extension.live`` -> ``website``)."""
    return module.split(".")[1] if "." in module else module


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def booktools_imports(tree: ast.AST) -> list[tuple[ast.stmt, str]]:
    """Every ``import booktools...`` and ``from booktools... import`` of a parsed module, with its target."""
    found: list[tuple[ast.stmt, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "booktools":
            found.append((node, node.module))
        elif isinstance(node, ast.Import):
            found += [(node, alias.name) for alias in node.names if alias.name.split(".")[0] == "booktools"]
    return found


def test_every_package_of_booktools_has_a_layer() -> None:
    tops = {path.stem if path.is_file() else path.name for path in PACKAGE.iterdir()}
    tops = {name for name in tops if not name.startswith(("_", ".")) or name == "__main__"} - {"__pycache__"}
    assert sorted(tops - set(LAYERS)) == [], "add the new package to LAYERS, where it belongs"
    assert sorted(set(LAYERS) - tops) == [], "a layer that no longer exists"


@pytest.mark.parametrize("path", MODULES, ids=lambda path: path.relative_to(PACKAGE).as_posix())
def test_a_module_imports_booktools_at_its_top_and_only_from_layers_below(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    name = module_name(path)
    at_top = {id(node) for node in tree.body}
    for node, target in booktools_imports(tree):
        if target == "booktools" or layer(target) == layer(name) or name == "booktools":
            continue
        if name != "booktools.__main__":
            assert id(node) in at_top, f"{name} imports {target} inside a function or block (line {node.lineno})"
        assert LAYERS.index(layer(target)) < LAYERS.index(layer(name)), (
            f"{name} (layer {layer(name)}) imports {target} (layer {layer(target)}), which is not below it"
        )


def test_only_the_sphinx_extension_imports_the_sphinx_extension() -> None:
    """The extension runs inside Sphinx; what the code outside it shares with it is ``booktools.website.assets``'."""
    extension = "booktools.website.extension"
    for path in MODULES:
        name = module_name(path)
        if name == extension or name.startswith(f"{extension}."):
            continue
        for _node, target in booktools_imports(ast.parse(path.read_text(encoding="utf-8"))):
            assert not (target == extension or target.startswith(f"{extension}.")), f"{name} imports {target}"


def test_the_check_finds_an_import_that_runs_upwards_or_hides_in_a_function() -> None:
    tree = ast.parse("import os\n\ndef f():\n    from booktools.website import jupyter_book\n")
    ((node, target),) = booktools_imports(tree)
    assert target == "booktools.website" and node not in tree.body
    assert LAYERS.index(layer(target)) > LAYERS.index(layer("booktools.derive.notebooks"))


def test_no_two_modules_import_each_other_even_within_a_package() -> None:
    """Within a layer imports may go either way between packages' modules, but never round in a cycle."""
    graph: dict[str, set[str]] = {}
    names = {module_name(path) for path in MODULES}
    for path in MODULES:
        name = module_name(path)
        tree = ast.parse(path.read_text(encoding="utf-8"))
        targets = set()
        for node, target in booktools_imports(tree):
            if isinstance(node, ast.ImportFrom):  # ``from package import module`` imports the module
                targets |= {f"{target}.{alias.name}" for alias in node.names} & names
            targets |= {target} & names
        graph[name] = {target for target in targets if target != name}
    try:
        list(graphlib.TopologicalSorter(graph).static_order())
    except graphlib.CycleError as error:
        pytest.fail(f"modules of booktools import each other in a cycle: {' -> '.join(error.args[1])}")


def test_the_package_map_lists_the_layers_in_their_order() -> None:
    listed = [name.rstrip("/") for name in package_map(PACKAGE / "__init__.py")]
    assert listed == list(LAYERS), "booktools/__init__.py's map lists the packages and top modules in LAYERS' order"
