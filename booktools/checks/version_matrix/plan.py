"""What the version matrix runs: the environments, their pins, stamps and test modules (no side effects)."""

from __future__ import annotations

import hashlib
import json
import re
import shlex
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from packaging.requirements import Requirement
from packaging.version import Version

from booktools.project import Project
from booktools.sources.frameworks import FRAMEWORKS as BOOK_FRAMEWORKS

if sys.version_info >= (3, 11):
    import tomllib
else:  # the tooling runs on 3.11 (README.md); mypy checks this file as 3.10 (pyproject.toml)
    import tomli as tomllib  # type: ignore[import-not-found]

FRAMEWORKS = tuple(framework.extra for framework in BOOK_FRAMEWORKS)
"""The extras of ``pyproject.toml``, one per framework, in the order they run."""
SERIES = ("lowest", "newest")
STAMP = ".version-matrix.json"
"""The stamp file in each environment: what it was made from (``environment_key``, ``library_key``)."""

LIBRARY_TESTS = Path("tests") / "library"
TESTS: dict[str, tuple[Path, ...]] = {
    # The shared suite directly in tests/library/ (less EXCLUDED), run for this framework only
    # (pytest --framework), and the framework's own folder beside it.
    framework: (LIBRARY_TESTS, LIBRARY_TESTS / framework)
    for framework in FRAMEWORKS
}
"""Per framework, the test folders it runs (the modules directly in them, see ``test_paths``)."""
EXCLUDED: dict[str, str] = {
    "test_cross_framework.py": "compares the three frameworks, so it needs all of them",
    "test_quiz_answers.py": "imports booktools (the quiz keys) and runs every framework",
    "test_benchmark_baselines.py": "tests the package benchmarks/ (torch), through tests/conftest.py's root fixture",
}
"""Modules of ``tests/library/`` that need more than one framework's library, and why; ``make test`` runs them."""

PACKAGES: dict[str, tuple[str, ...]] = {
    "torch": ("torch",),
    "jax": ("jax", "jaxlib", "flax"),
    "tensorflow": ("tensorflow", "keras"),
}
"""The distributions whose installed versions the report shows, per framework (NumPy besides)."""
TEST_TOOLS = ("pytest", "hypothesis")

Action = Literal["create", "reinstall", "reuse"]


def lower_bound_pins(pyproject: dict[str, Any], extra: str) -> list[str]:
    """Pin every requirement of ``extra`` to the release series its lower bound names.

    ``torch>=2.3`` gives ``torch==2.3.*``, ``flax>=0.8.5`` gives ``flax==0.8.5.*``: the
    series is the release as the bound writes it, so its patch releases are allowed.

    Raises:
        KeyError: if ``pyproject.toml`` has no such extra.
        ValueError: if a requirement of the extra has no ``>=`` bound.
    """
    pins = []
    for line in pyproject["project"]["optional-dependencies"][extra]:
        requirement = Requirement(line)
        bounds = [spec.version for spec in requirement.specifier if spec.operator == ">="]
        if len(bounds) != 1:
            raise ValueError(f"extra {extra!r}: {line!r} needs exactly one '>=' bound to take the lowest series from")
        release = ".".join(str(part) for part in Version(bounds[0]).release)
        pins.append(f"{requirement.name}=={release}.*")
    return pins


def test_tools(requirements: str) -> list[str]:
    """Return the pins of pytest and hypothesis from ``requirements.txt``'s text.

    Raises:
        ValueError: if ``requirements.txt`` does not pin one of them.
    """
    pins = {}
    for line in requirements.splitlines():
        name, _, version = line.split("#")[0].strip().partition("==")
        if name.lower() in TEST_TOOLS and version:
            pins[name.lower()] = f"{name.lower()}=={version.strip()}"
    missing = [tool for tool in TEST_TOOLS if tool not in pins]
    if missing:
        raise ValueError(f"requirements.txt pins no {', '.join(missing)}")
    return [pins[tool] for tool in TEST_TOOLS]


def library_addopts(pyproject: dict[str, Any]) -> str:
    """Return ``pyproject.toml``'s pytest ``addopts`` less its plugins of ``booktools`` (``-p booktools.<module>``).

    Those plugins belong to the toolchain, which the environments do not have. ``-p no:<module>`` on the
    command line would not do: pytest puts ``addopts`` first and imports each plugin where ``-p`` names it.
    """
    words = shlex.split(pyproject["tool"]["pytest"]["ini_options"].get("addopts", ""))
    kept: list[str] = []
    index = 0
    while index < len(words):
        if words[index] == "-p" and words[index + 1 : index + 2] and words[index + 1].startswith("booktools."):
            index += 2  # -p booktools.<module>
            continue
        if not words[index].startswith("-pbooktools."):
            kept.append(words[index])
        index += 1
    return shlex.join(kept)


def test_paths(framework: str, project: Project) -> list[Path]:
    """Return the test modules ``framework``'s environments run: those directly in its ``TESTS``
    folders, less ``EXCLUDED``, in name order."""
    return [
        path
        for folder in TESTS[framework]
        for path in sorted((project.root / folder).glob("test_*.py"))
        if path.name not in EXCLUDED
    ]


def _digest(parts: Iterable[str]) -> str:
    hasher = hashlib.sha256()
    for part in parts:
        hasher.update(part.encode("utf-8"))
        hasher.update(b"\0")
    return hasher.hexdigest()


def environment_key(python: str, dependencies: Sequence[str], requirements: Sequence[str], upgrade: bool) -> str:
    """Return the stamp of what an environment is made from: its Python (path and version), the
    library's requirements, what pip gets besides (pins, test tools) and whether pip upgrades."""
    return _digest([python, *dependencies, "--", *requirements, f"upgrade={upgrade}"])


def library_key(files: dict[str, bytes]) -> str:
    """Return the stamp of the library's source: file names (relative paths) and contents."""
    hasher = hashlib.sha256()
    for name in sorted(files):
        hasher.update(name.encode("utf-8") + b"\0" + hashlib.sha256(files[name]).digest())
    return hasher.hexdigest()


def action(stamp: dict[str, str] | None, environment: str, library: str) -> Action:
    """Decide what an environment needs, from its stamp (``None``: no stamp, or an unreadable one).

    ``create`` when it has no stamp or was made from other requirements or another Python,
    ``reinstall`` (the library alone) when only the library changed, else ``reuse``.
    """
    if stamp is None or stamp.get("environment") != environment:
        return "create"
    if stamp.get("library") != library:
        return "reinstall"
    return "reuse"


def read_stamp(path: Path) -> dict[str, str] | None:
    """Return the stamp at ``path``, or ``None`` if it is missing or not a stamp."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or not all(isinstance(value, str) for value in data.values()):
        return None
    return {str(key): value for key, value in data.items()}


_COUNT = re.compile(r"(\d+) (passed|failed|skipped|errors?|xfailed|xpassed|deselected|warnings?)\b")


def summary_counts(summary: str) -> dict[str, int]:
    """Return the counts of pytest's last summary line (``3 failed, 250 passed in 9.1s``),
    with ``error`` and ``warning`` under their plural names."""
    counts: dict[str, int] = {}
    for number, word in _COUNT.findall(summary):
        word = {"error": "errors", "warning": "warnings"}.get(word, word)
        counts[word] = counts.get(word, 0) + int(number)
    return counts


@dataclass
class Environment:
    """One framework at one series: where its environment lives and what goes into it."""

    framework: str
    series: str
    requirements: list[str]
    """What pip gets besides ``d2l_lib[<framework>]``: the series' pins and the test tools."""
    dependencies: list[str]
    """The library's requirements for this framework in ``pyproject.toml`` (for the stamp)."""
    python: str
    """The Python the environment is made with."""
    project: Project
    addopts: str
    """pytest's ``addopts`` for the environment (``library_addopts``), which replace ``pyproject.toml``'s."""
    python_id: str = ""
    """That Python's path and ``sys.version`` (for the stamp), filled in by ``main``."""

    @property
    def name(self) -> str:
        """``<framework>-<series>``, the environment's folder under ``_build/versions/``."""
        return f"{self.framework}-{self.series}"

    @property
    def path(self) -> Path:
        """The environment's folder."""
        return self.project.work_dir("versions") / self.name

    @property
    def bin_python(self) -> Path:
        """The environment's Python."""
        return self.path / "bin" / "python"

    @property
    def upgrade(self) -> bool:
        """Whether pip upgrades (the newest series) rather than keeping the pins' choice."""
        return self.series == "newest"


def environments(python: str, project: Project, frameworks: Iterable[str] = FRAMEWORKS) -> list[Environment]:
    """Return the environments to test, each framework's lowest then newest series, made with ``python``."""
    pyproject = tomllib.loads((project.root / "pyproject.toml").read_text(encoding="utf-8"))
    tools = test_tools((project.root / "requirements.txt").read_text(encoding="utf-8"))
    addopts = library_addopts(pyproject)
    found = []
    for framework in frameworks:
        dependencies = [
            *pyproject["project"]["dependencies"],
            *pyproject["project"]["optional-dependencies"][framework],
        ]
        pins = {"lowest": lower_bound_pins(pyproject, framework), "newest": []}
        for series in SERIES:
            requirements = [*pins[series], *tools]
            found.append(Environment(framework, series, requirements, dependencies, python, project, addopts))
    return found
