"""The releases booktools' couplings to other tools' insides were written for (``booktools.upstream``), and its guards.

A wrong release is faked by a ``.dist-info`` folder put first on the path (a fresh
interpreter then finds that release installed), or by replacing ``booktools.upstream.guard.version``.
"""

from __future__ import annotations

import ast
import functools
import re
import subprocess
import sys
from importlib.metadata import files, packages_distributions, requires, version
from pathlib import Path
from types import SimpleNamespace
from typing import Any
from unittest import mock

import pydata_sphinx_theme
import pytest
import sphinx
import sphinx_book_theme
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from sphinx.errors import ExtensionError

import booktools.website.extension
from booktools.checks import nbval_plugin
from booktools.configuration.config_file import Edition
from booktools.project import Project
from booktools.upstream import guard, tools
from booktools.website import jupyter_book
from booktools.website.extension import theme_digest

PROJECT = Project.here()
BOOKTOOLS = PROJECT.root / "booktools"
TEMPLATES = BOOKTOOLS / "website" / "extension" / "templates"
# The exact message of a faked release, one format everywhere (the report of issue 39 quotes it).
COPYBUTTON_0_6 = (
    "sphinx-copybutton is 0.6.0, but booktools was written against 0.5.2: check "
    "booktools/website/extension/loading.py (its scripts' file names, loaded on demand), then change the release "
    "in booktools/upstream/tools.py and the pin in requirements.txt together"
)


def pins(requirements: str) -> dict[str, str]:
    """The exact pins of a requirements file of the repository (name -> release)."""
    text = (PROJECT.root / requirements).read_text(encoding="utf-8")
    return dict(re.findall(r"^([A-Za-z0-9_.-]+)==(\S+)$", text, re.M))


def as_written(**changed: str) -> dict[str, str]:
    """Every tool at the release it was written for, but those ``changed`` (distribution with ``_`` for ``-``)."""
    written = {tool.distribution: tool.release for tool in tools.UPSTREAM}
    return written | {name.replace("_", "-"): release for name, release in changed.items()}


def faked_version(distribution: str, release: str) -> Any:
    """``importlib.metadata.version`` as if ``release`` of ``distribution`` were installed."""
    return lambda name: release if name == distribution else version(name)


@pytest.mark.parametrize("tool", tools.UPSTREAM, ids=lambda tool: tool.distribution)
def test_requirements_pin_and_the_environment_hold_the_release_each_coupling_was_written_for(tool) -> None:
    pinned = pins(tool.requirements).get(tool.distribution)
    assert pinned == tool.release, (
        f"{tool.requirements} pins {tool.distribution} {pinned}; upstream/tools.py: {tool.release}"
    )
    if tool.requirements == tools.REQUIREMENTS:
        assert version(tool.distribution) == tool.release
    assert guard.installed_problems() == []


def test_a_patch_release_of_the_same_series_builds() -> None:
    assert guard.problems(as_written(pydata_sphinx_theme="0.17.9")) == []


def test_another_series_stops_the_build_naming_the_tool_the_releases_and_the_places() -> None:
    (problem,) = guard.problems(as_written(sphinx_book_theme="1.4.0"))
    assert "sphinx-book-theme is 1.4.0" in problem and "1.3.0" in problem and "author.html" in problem
    (missing,) = guard.problems({tool.distribution: tool.release for tool in tools.UPSTREAM[1:]})
    assert "pydata-sphinx-theme is not installed" in missing
    assert guard.problems(as_written(sphinx_copybutton="0.6.0")) == [COPYBUTTON_0_6]


def test_the_environment_s_tools_are_those_its_requirements_pin() -> None:
    tools = guard.environment_tools()
    assert "d2lbook" not in {tool.distribution for tool in tools}, "d2lbook lives in .venv-d2lbook"
    assert {"nbval", "myst-parser", "sphinx_external_toc"} <= {tool.distribution for tool in tools}


def test_a_wrong_release_fails_the_site_build_before_any_edition_starts(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(guard, "version", faked_version("sphinx-copybutton", "0.6.0"))
    started = mock.Mock(side_effect=AssertionError("an edition was started"))
    monkeypatch.setattr(jupyter_book, "prepare_edition", started)
    monkeypatch.setattr(jupyter_book, "run_edition", started)
    edition = Edition("en", "English", "Title")
    assert jupyter_book.build_editions(PROJECT, [edition], [edition], {}, {}) == {"en": False}
    assert capsys.readouterr().err == f"make book failed: {COPYBUTTON_0_6}\n"
    started.assert_not_called()


def test_importing_the_extension_on_a_wrong_release_stops_with_the_guard_s_words(tmp_path: Path) -> None:
    """A fresh interpreter that finds Sphinx 8.1.3 installed: the package stops before its modules import Sphinx's
    insides (sphinx.util.console.strip_escape_sequences, ...), and Sphinx reports the guard's message."""
    fake = tmp_path / "fake"
    (fake / "sphinx-8.1.3.dist-info").mkdir(parents=True)
    (fake / "sphinx-8.1.3.dist-info" / "METADATA").write_text("Metadata-Version: 2.1\nName: Sphinx\nVersion: 8.1.3\n")
    loading = (
        "import sys; sys.path.insert(0, sys.argv[1])\n"
        "from sphinx.registry import SphinxComponentRegistry\n"
        "from sphinx.errors import ExtensionError\n"
        "app = type('App', (), {'extensions': {}, 'registry': SphinxComponentRegistry()})()\n"
        "try:\n"
        "    app.registry.load_extension(app, 'booktools.website.extension')\n"
        "except ExtensionError as error:\n"
        "    print(error)\n"
        "    print('loaded:', sorted(m for m in sys.modules if m.startswith('booktools.website.extension.')))\n"
    )
    run = subprocess.run([sys.executable, "-c", loading, str(fake)], capture_output=True, text=True, check=True)
    message = run.stdout
    assert message.startswith("Could not import extension booktools.website.extension (exception: Sphinx is 8.1.3, ")
    assert "but booktools was written against 7.4.7: check booktools/website/extension/theme_words.py" in message
    assert "booktools/website/extension/warning_file.py (sphinx.util.logging NAMESPACE" in message
    assert "loaded: []" in message, "a module of the extension was imported before the guard"


def test_the_theme_s_digest_is_given_to_the_templates_once_the_configuration_is_read() -> None:
    app = mock.MagicMock(config={})  # records what the extension's setup registers
    booktools.website.extension.setup(app)
    handlers = [call.args[1] for call in app.connect.call_args_list if call.args[0] == "config-inited"]
    assert theme_digest.give_theme_digest in handlers
    config = SimpleNamespace(html_context={})
    theme_digest.give_theme_digest(mock.Mock(), config)  # type: ignore[arg-type]
    assert config.html_context == {theme_digest.CONTEXT_KEY: theme_digest.theme_asset_digest()}


def test_the_nbval_plugin_refuses_another_series_of_nbval_in_the_registry_s_words(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(guard, "version", faked_version("nbval", "0.12.0"))
    replaying: Any = SimpleNamespace(getoption=lambda name, default=None: name == "nbval")  # pytest --nbval
    with pytest.raises(pytest.UsageError) as refused:
        nbval_plugin.pytest_configure(replaying)
    assert str(refused.value) == (
        "nbval is 0.12.0, but booktools was written against 0.11.0: check booktools/checks/nbval_plugin.py "
        "(nbval.plugin.IPyNbCell.compare_outputs replaced, its signature and the cell's attributes), then change "
        "the release in booktools/upstream/tools.py and the pin in requirements.txt together"
    )


def test_the_theme_s_asset_digest_is_read_from_its_own_template_not_copied(tmp_path: Path) -> None:
    digest = theme_digest.theme_asset_digest()
    assert re.fullmatch(r"[0-9a-f]{8,}", digest)
    ours = (TEMPLATES / "static" / "webpack-macros.html").read_text(encoding="utf-8")
    assert "?digest=" not in ours.replace("?digest={{ book_theme_digest }}", ""), "a digest copied by hand"
    two = tmp_path / "macros.html"
    two.write_text('<a href="a?digest=0a1b2c3d"></a><a href="b?digest=ffff0000"></a>', encoding="utf-8")
    with pytest.raises(ExtensionError, match="expected one asset digest"):
        theme_digest.theme_asset_digest(two)


# Completeness: every coupling of booktools/ is a place of its tool (the rule: booktools/upstream/tools.py's docstring).
THEME_TEMPLATES = {  # each theme's own templates, nearest first (sphinx-book-theme extends pydata-sphinx-theme)
    "sphinx-book-theme": Path(sphinx_book_theme.__file__).parent / "theme" / "sphinx_book_theme",
    "pydata-sphinx-theme": Path(pydata_sphinx_theme.__file__).parent / "theme" / "pydata_sphinx_theme",
    "Sphinx": Path(sphinx.__file__).parent / "themes" / "basic",
}
ECOSYSTEM = {"sphinx", "docutils"}
# Packages of the standard library under another name on older Pythons (imported only where the library has none).
BACKPORTS = {"tomli"}
# Handlers ordered among the book's own, not around another tool's: (module under booktools/, priority).
OWN_ORDER = {
    ("website/sphinx_settings.py", 0),  # the settings checked before the handlers that read them
    ("website/extension/warning_file.py", 0),  # warnings teed from the start
    ("website/extension/warning_file.py", 1000),  # the file closed last
    ("website/extension/loading.py", 900),  # after every handler that adds a script
    ("website/extension/page_steps.py", 900),  # the written site rewritten after the build's own steps
}


def is_private(name: str) -> bool:
    return name.startswith("_") and name != "_" and not name.startswith("__")


def third_party(module: str) -> bool:
    return module.split(".")[0] not in sys.stdlib_module_names | BACKPORTS | {"booktools", "__future__"}


def registered(distribution: str) -> bool:
    return canonicalize_name(distribution) in {canonicalize_name(tool.distribution) for tool in tools.UPSTREAM}


@functools.cache
def distribution_of(module: str) -> str:
    """The distribution that installs ``module`` (in a namespace package, the one holding its folder)."""
    for tool in tools.UPSTREAM:
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
        public = name is not None and name in tools.PUBLIC_API.get(module, ())
        private = any(is_private(part) for part in what.split("."))
        if private or ((registered(distribution) or in_ecosystem(distribution)) and not public):
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
        if isinstance(node, ast.Assign | ast.AugAssign):  # a replaced attribute: Cell.method = ...
            for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name):
                    if target.value.id in bound:
                        found.add((distribution_of(bound[target.value.id]), f"{ast.unparse(target)} replaced"))
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
    by_name = {canonicalize_name(tool.distribution): tool for tool in tools.UPSTREAM}
    tool = by_name.get(canonicalize_name(distribution))
    if tool is None:
        return f"{distribution} is not in tools.UPSTREAM"
    if path not in {place.path for place in tool.places}:
        return f"{distribution}'s places do not list {path}"
    return None


def modules() -> list[tuple[str, Path]]:
    """Every module of booktools but the registry itself, with its path under ``booktools/``."""
    found = [(module.relative_to(BOOKTOOLS).as_posix(), module) for module in sorted(BOOKTOOLS.rglob("*.py"))]
    return [(path, module) for path, module in found if path != "upstream/tools.py" and "__pycache__" not in path]


def test_every_module_s_coupling_is_a_place_of_its_tool() -> None:
    faults = []
    for path, module in modules():
        for distribution, what in sorted(couplings(module.read_text(encoding="utf-8"))):
            if (fault := unlisted(path, distribution)) is not None:
                faults.append(f"booktools/{path} uses {what}: {fault}")
    assert faults == []


def test_the_scan_reaches_beyond_the_website() -> None:
    scanned = {path.split("/")[0] for path, module in modules() if couplings(module.read_text(encoding="utf-8"))}
    assert {"sources", "checks", "slides", "website"} <= scanned
    # The bottom layers read _toc.yml and _config.yml as plain YAML: a Jupyter Book migration stops above them.
    assert not {"upstream", "configuration", "project.py"} & scanned, sorted(scanned)


def priorities(source: str) -> set[int]:
    """The priorities of a module's ``app.connect(..., priority=N)`` calls (a number, or a constant of the module)."""
    tree = ast.parse(source)
    constants = {
        target.id: node.value
        for node in tree.body
        if isinstance(node, ast.Assign)
        for target in node.targets
        if isinstance(target, ast.Name)
    }
    return {
        int(ast.literal_eval(constants.get(ast.unparse(keyword.value), keyword.value)))
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "connect"
        for keyword in node.keywords
        if keyword.arg == "priority"
    }


def test_every_handler_priority_is_ordered_among_the_book_s_own_or_a_place_of_the_tool_it_is_ordered_around() -> None:
    placed = {(place.path, what) for tool in tools.UPSTREAM for place in tool.places for what in [place.what]}
    faults = []
    for path, module in modules():
        for priority in sorted(priorities(module.read_text(encoding="utf-8"))):
            listed = any(where == path and re.search(rf"\bpriority {priority}\b", what) for where, what in placed)
            if not listed and (path, priority) not in OWN_ORDER:
                faults.append(f"booktools/{path}: priority {priority} is neither in OWN_ORDER nor a place's")
    assert faults == []
    stale = {
        (path, priority)
        for path, priority in OWN_ORDER
        if priority not in priorities((BOOKTOOLS / path).read_text(encoding="utf-8"))
    }
    assert stale == set()


def test_every_template_that_overrides_a_theme_s_is_a_place_of_that_theme() -> None:
    faults, overrides = [], 0
    for template in sorted(TEMPLATES.rglob("*.html")):
        theme = overridden_theme(template)
        if theme is None:
            continue
        overrides += 1
        path = template.relative_to(BOOKTOOLS).as_posix()
        if (fault := unlisted(path, theme)) is not None:
            faults.append(f"booktools/{path} overrides {theme}'s template: {fault}")
    assert faults == []
    assert overrides >= 9, "the themes' templates were not found"


def test_every_place_exists() -> None:
    missing = [
        f"{tool.distribution}: {place.path}"
        for tool in tools.UPSTREAM
        for place in tool.places
        if not (BOOKTOOLS / place.path).is_file()
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
        ("import yaml\nimport bs4\nimport tomli", set()),
        (
            "from myst_parser.parsers.mdit import create_md_parser",
            {("myst-parser", "myst_parser.parsers.mdit.create_md_parser")},
        ),
        (  # nbval needs no Sphinx, but it is a tool of the registry: an import from it is a coupling
            "from nbval.plugin import IPyNbCell\nIPyNbCell.compare_outputs = compare",
            {("nbval", "nbval.plugin.IPyNbCell"), ("nbval", "IPyNbCell.compare_outputs replaced")},
        ),
        ("import yaml\nyaml.SafeLoader = Loader", {("PyYAML", "yaml.SafeLoader replaced")}),
        ("from d2lbook import slides", {("d2lbook", "d2lbook.slides")}),
    ],
)
def test_what_counts_as_a_coupling(source: str, expected: set[tuple[str, str]]) -> None:
    assert {(canonicalize_name(d), w) for d, w in couplings(source)} == {(canonicalize_name(d), w) for d, w in expected}
