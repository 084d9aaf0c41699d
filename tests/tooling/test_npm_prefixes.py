"""The Makefile installs each pinned npm package where ``booktools.programs.npm_prefix`` looks for it.

The folder of each npm package is spelled once for Python (``npm_prefix``) and once for
make, which cannot ask Python before ``.venv`` exists: this test reads the Makefile's
variables and holds the two spellings together.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from booktools.programs import NPM_TOOLS, npm_prefix
from booktools.project import D2LBOOK_ENV, Project

PROJECT = Project.here()
ASSIGNMENT = re.compile(r"^([A-Z][A-Z0-9_]*)\s*[:?]?=\s*(.*?)\s*$", re.MULTILINE)
REFERENCE = re.compile(r"\$\(([A-Z][A-Z0-9_]*)\)")
NPM_CI = re.compile(r"npm ci --prefix \$\(([A-Z][A-Z0-9_]*)\)")
# The Makefile's variable of each npm package, and the variable of the environment it belongs to.
MAKE_VARIABLES = {
    "axe": ("AXE", "VENV"),
    "thebe": ("THEBE", "VENV"),
    "katex": ("KATEX", "VENV"),
    "lighthouse": ("LIGHTHOUSE", "VENV"),
    "reveal": ("REVEAL", "D2LBOOK_VENV"),
}


def make_variables(text: str) -> dict[str, str]:
    """Return the Makefile's simple variables, each ``$(NAME)`` in them expanded."""
    raw = dict(ASSIGNMENT.findall(text))

    def expand(value: str, seen: frozenset[str]) -> str:
        def replace(match: re.Match[str]) -> str:
            name = match.group(1)
            if name in seen or name not in raw:
                return match.group(0)
            return expand(raw[name], seen | {name})

        return REFERENCE.sub(replace, value)

    return {name: expand(value, frozenset({name})) for name, value in raw.items()}


@pytest.fixture(scope="module")
def makefile() -> str:
    return (PROJECT.root / "Makefile").read_text(encoding="utf-8")


def test_every_tool_has_a_make_variable() -> None:
    assert sorted(MAKE_VARIABLES) == sorted(NPM_TOOLS)


@pytest.mark.parametrize("tool", NPM_TOOLS)
def test_makefile_installs_where_python_looks(makefile: str, tool: str) -> None:
    variables = make_variables(makefile)
    folder, environment = MAKE_VARIABLES[tool]
    assert folder in variables, f"the Makefile has no variable {folder} for npm's {tool}"
    assert Path(variables[folder]) == npm_prefix(tool, Path(variables[environment])), (
        f"Makefile {folder} = {variables[folder]}, but booktools.programs.npm_prefix({tool!r}) "
        f"puts it at {npm_prefix(tool, Path(variables[environment]))}"
    )


def test_the_slides_environment_is_the_projects(makefile: str) -> None:
    assert make_variables(makefile)["D2LBOOK_VENV"] == D2LBOOK_ENV


def test_every_npm_install_is_a_known_tool(makefile: str) -> None:
    installed = set(NPM_CI.findall(makefile))
    known = {folder for folder, _ in MAKE_VARIABLES.values()}
    assert installed == known, f"npm ci --prefix of {sorted(installed - known)} is not in npm_prefix's NPM_TOOLS"


def test_an_unknown_tool_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown npm tool 'mathjax'"):
        npm_prefix("mathjax")


def test_default_is_the_running_environment(tmp_path: Path) -> None:
    assert npm_prefix("katex", tmp_path) == tmp_path / "share" / "d2l-book" / "katex"
    assert npm_prefix("katex").parts[-3:] == ("share", "d2l-book", "katex")


RULE = re.compile(r"^([^\s#][^:=\n]*?):(?!=)([^\n]*)$", re.MULTILINE)


def prerequisites(text: str, target: str) -> set[str]:
    """Every prerequisite ``target`` reaches in the Makefile ``text``, directly or not, variables expanded."""
    variables = make_variables(text)
    expanded = lambda words: REFERENCE.sub(lambda match: variables.get(match.group(1), match.group(0)), words)  # noqa: E731
    rules: dict[str, set[str]] = {}
    for targets, needs in RULE.findall(text):
        for name in expanded(targets).split():
            rules.setdefault(name, set()).update(word for word in expanded(needs).split() if word != "|")
    reached: set[str] = set()
    pending = [target]
    while pending:
        for need in rules.get(pending.pop(), set()) - reached:
            reached.add(need)
            pending.append(need)
    return reached


def test_axe_core_is_installed_for_the_tests_alone(makefile: str) -> None:
    axe = make_variables(makefile)["AXE_SCRIPT"]
    assert axe not in prerequisites(makefile, "book"), "make book installs axe-core, a tool of the tests only"
    assert axe not in prerequisites(makefile, "setup"), "make setup installs axe-core, a tool of the tests only"
    for target in ("test", "pytest"):
        assert axe in prerequisites(makefile, target), f"make {target} does not install axe-core, which the tests use"
