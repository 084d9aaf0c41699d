"""The releases the extension's couplings were written for (booktools.website.extension.upstream)."""

from __future__ import annotations

import ast
import functools
import re
import sys
from importlib.metadata import files, packages_distributions, requires, version
from pathlib import Path

import pydata_sphinx_theme
import pytest
import sphinx
import sphinx_book_theme
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from sphinx.errors import ExtensionError

from booktools.project import Project
from booktools.website.extension import upstream

PROJECT = Project.here()
TEMPLATES = Path(upstream.__file__).parent / "templates"


@pytest.mark.parametrize("tool", upstream.UPSTREAM, ids=lambda tool: tool.distribution)
def test_requirements_pin_and_the_environment_hold_the_release_each_coupling_was_written_for(tool) -> None:
    pins = dict(re.findall(r"^([A-Za-z0-9_.-]+)==(\S+)$", (PROJECT.root / "requirements.txt").read_text(), re.M))
    assert pins.get(tool.distribution) == tool.release, (
        f"requirements.txt pins {tool.distribution} {pins.get(tool.distribution)}; upstream.py says {tool.release}"
    )
    assert version(tool.distribution) == tool.release
    assert upstream.problems({t.distribution: version(t.distribution) for t in upstream.UPSTREAM}) == []


def test_a_patch_release_of_the_same_series_builds() -> None:
    installed = {tool.distribution: tool.release for tool in upstream.UPSTREAM} | {"pydata-sphinx-theme": "0.17.9"}
    assert upstream.problems(installed) == []


def test_another_series_stops_the_build_naming_the_tool_the_releases_and_the_places() -> None:
    installed = {tool.distribution: tool.release for tool in upstream.UPSTREAM} | {"sphinx-book-theme": "1.4.0"}
    (problem,) = upstream.problems(installed)
    assert "sphinx-book-theme is 1.4.0" in problem and "1.3.0" in problem and "author.html" in problem
    (missing,) = upstream.problems({tool.distribution: tool.release for tool in upstream.UPSTREAM[1:]})
    assert "pydata-sphinx-theme is not installed" in missing


def test_the_theme_s_asset_digest_is_read_from_its_own_template_not_copied(tmp_path: Path) -> None:
    digest = upstream.theme_asset_digest()
    assert re.fullmatch(r"[0-9a-f]{8,}", digest)
    ours = (TEMPLATES / "static" / "webpack-macros.html").read_text(encoding="utf-8")
    assert "?digest=" not in ours.replace("?digest={{ book_theme_digest }}", ""), "a digest copied by hand"
    two = tmp_path / "macros.html"
    two.write_text('<a href="a?digest=0a1b2c3d"></a><a href="b?digest=ffff0000"></a>', encoding="utf-8")
    with pytest.raises(ExtensionError, match="expected one asset digest"):
        upstream.theme_asset_digest(two)


# Completeness: every coupling of booktools/website/ is a place of its tool (the rule: upstream.py's docstring).
WEBSITE = PROJECT.root / "booktools" / "website"
THEME_TEMPLATES = {  # each theme's own templates, nearest first (sphinx-book-theme extends pydata-sphinx-theme)
    "sphinx-book-theme": Path(sphinx_book_theme.__file__).parent / "theme" / "sphinx_book_theme",
    "pydata-sphinx-theme": Path(pydata_sphinx_theme.__file__).parent / "theme" / "pydata_sphinx_theme",
    "Sphinx": Path(sphinx.__file__).parent / "themes" / "basic",
}
ECOSYSTEM = {"sphinx", "docutils"}


def is_private(name: str) -> bool:
    return name.startswith("_") and name != "_" and not name.startswith("__")


def third_party(module: str) -> bool:
    return module.split(".")[0] not in sys.stdlib_module_names | {"booktools", "__future__"}


@functools.cache
def distribution_of(module: str) -> str:
    """The distribution that installs ``module`` (in a namespace package, the one holding its folder)."""
    for tool in upstream.UPSTREAM:
        if any(module == name or module.startswith(f"{name}.") for name in tool.modules):
            return tool.distribution
    top, *rest = module.split(".")
    candidates = packages_distributions().get(top, [])
    if len(candidates) > 1 and rest:
        folder = f"{top}/{rest[0]}"
        candidates = [d for d in candidates if any(str(f).startswith(folder) for f in files(d) or [])]
    assert candidates, f"no installed distribution provides {module}"
    return candidates[0]


@functools.cache
def in_ecosystem(distribution: str) -> bool:
    """Whether ``distribution`` is Sphinx, docutils, or requires one of them (a theme, an extension, Jupyter Book)."""
    if canonicalize_name(distribution) in ECOSYSTEM:
        return True
    needs = [Requirement(line) for line in requires(distribution) or []]
    return any(canonicalize_name(need.name) in ECOSYSTEM and need.marker is None for need in needs)


def couplings(source: str) -> set[tuple[str, str]]:
    """The couplings of one module's source, as (distribution, what)."""
    tree = ast.parse(source)
    found: set[tuple[str, str]] = set()
    bound: dict[str, str] = {}  # a name bound by an import of a third-party module -> that module
    strings = {
        target.id: node.value.value
        for node in tree.body
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)
        for target in node.targets
        if isinstance(target, ast.Name)
    }

    def used(module: str, name: str | None) -> None:
        what = f"{module}.{name}" if name else module
        distribution = distribution_of(what)  # "from sphinxcontrib import katex": sphinxcontrib-katex
        public = name is not None and name in upstream.PUBLIC_API.get(module, ())
        private = any(is_private(part) for part in what.split("."))
        if private or (in_ecosystem(distribution) and not public):
            found.add((distribution, what))

    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0 and third_party(node.module):
            for alias in node.names:
                used(node.module, alias.name)
                bound[alias.asname or alias.name] = f"{node.module}.{alias.name}"
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if third_party(alias.name):
                    used(alias.name, None)
                    # "import a.b as c" binds c to a.b; "import a.b" binds a
                    bound[alias.asname or alias.name.split(".")[0]] = (
                        alias.name if alias.asname else alias.name.split(".")[0]
                    )
        elif isinstance(node, ast.Call):
            callee = ast.unparse(node.func)
            if callee in {"importlib.import_module", "import_module"} and node.args:
                argument = node.args[0]
                name = argument.value if isinstance(argument, ast.Constant) else strings.get(ast.unparse(argument))
                if isinstance(name, str) and third_party(name):
                    found.add((distribution_of(name), f"{name}, imported by name"))
            overrides = any(k.arg == "override" and ast.unparse(k.value) == "True" for k in node.keywords)
            if overrides and node.args and isinstance(node.args[0], ast.Attribute):
                root = ast.unparse(node.args[0]).split(".")[0]
                if root in bound:
                    found.add((distribution_of(bound[root]), f"{ast.unparse(node.args[0])} overridden"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and is_private(node.attr):
            root = node
            while isinstance(root, ast.Attribute):
                root = root.value
            if isinstance(root, ast.Name) and root.id in bound:
                found.add((distribution_of(bound[root.id]), ast.unparse(node)))
    return found


def overridden_theme(template: Path) -> str | None:
    """The theme whose own template ``template`` (under ``extension/templates/``) overrides; None for the book's own."""
    name = template.relative_to(TEMPLATES).as_posix()
    for theme, folder in THEME_TEMPLATES.items():
        if any(path.relative_to(folder).as_posix().endswith(name) for path in folder.rglob(template.name)):
            return theme
    return None


def unlisted(path: str, distribution: str) -> str | None:
    tools = {canonicalize_name(tool.distribution): tool for tool in upstream.UPSTREAM}
    tool = tools.get(canonicalize_name(distribution))
    if tool is None:
        return f"{distribution} is not in upstream.UPSTREAM"
    if path not in {place.path for place in tool.places}:
        return f"{distribution}'s places do not list {path}"
    return None


def test_every_module_s_coupling_is_a_place_of_its_tool() -> None:
    faults = []
    for module in sorted(WEBSITE.rglob("*.py")):
        path = module.relative_to(WEBSITE).as_posix()
        if path == "extension/upstream.py":  # the list itself
            continue
        for distribution, what in sorted(couplings(module.read_text(encoding="utf-8"))):
            if (fault := unlisted(path, distribution)) is not None:
                faults.append(f"booktools/website/{path} uses {what}: {fault}")
    assert faults == []


def test_every_template_that_overrides_a_theme_s_is_a_place_of_that_theme() -> None:
    faults, overrides = [], 0
    for template in sorted(TEMPLATES.rglob("*.html")):
        theme = overridden_theme(template)
        if theme is None:
            continue
        overrides += 1
        path = template.relative_to(WEBSITE).as_posix()
        if (fault := unlisted(path, theme)) is not None:
            faults.append(f"booktools/website/{path} overrides {theme}'s template: {fault}")
    assert faults == []
    assert overrides >= 9, "the themes' templates were not found"


def test_every_place_exists() -> None:
    missing = [
        f"{tool.distribution}: {place.path}"
        for tool in upstream.UPSTREAM
        for place in tool.places
        if not (WEBSITE / place.path).is_file()
    ]
    assert missing == []


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("from sphinx.application import Sphinx\nfrom docutils import nodes", set()),
        ("from sphinx.util.logging import NAMESPACE", {("Sphinx", "sphinx.util.logging.NAMESPACE")}),
        ("import sphinx", {("Sphinx", "sphinx")}),
        (
            "from sphinx_design.shared import create_component",
            {("sphinx_design", "sphinx_design.shared.create_component")},
        ),
        ("import jinja2\nx = jinja2._private", {("Jinja2", "jinja2._private")}),
        (
            'import importlib\nM = "myst_nb.sphinx_"\nimportlib.import_module(M)',
            {("myst-nb", "myst_nb.sphinx_, imported by name")},
        ),
        (
            "from docutils import nodes\napp.add_node(nodes.citation, override=True)",
            {("docutils", "nodes.citation overridden")},
        ),
        ("import yaml\nimport bs4", set()),
    ],
)
def test_what_counts_as_a_coupling(source: str, expected: set[tuple[str, str]]) -> None:
    assert {(canonicalize_name(d), w) for d, w in couplings(source)} == {(canonicalize_name(d), w) for d, w in expected}
