"""The library's tests on the lowest and the newest release of each framework it allows (``make test-versions``).

``pyproject.toml`` gives each framework as an extra with a lower bound (``torch>=2.3``,
``jax>=0.4.30`` with ``flax>=0.8.5``, ``tensorflow>=2.16``). For every framework and each of
two series this builds a virtual environment ``_build/versions/<framework>-<series>/``:

- ``lowest``: ``d2l_lib[<extra>]`` with every requirement of the extra pinned to the series its
  lower bound names (``torch>=2.3`` gives ``torch==2.3.*``, ``flax>=0.8.5`` gives
  ``flax==0.8.5.*``), so the bound in ``pyproject.toml`` stays the one fact;
- ``newest``: ``d2l_lib[<extra>]`` as ``pip install --upgrade`` resolves it.

Nothing else is pinned: NumPy and matplotlib are whatever pip resolves beside the framework,
as a user's ``pip install "d2l_lib[torch]"`` gets them. The library is installed from a copy
of ``pyproject.toml``, ``README.md`` and ``d2l_lib/`` (a real, non-editable install, built
outside the working tree), with pytest and hypothesis at the versions ``requirements.txt`` pins.

Each environment then runs the tests of its framework (``TESTS``), the ones that need that
framework alone: no other framework and not ``booktools`` (whose dependencies are the
toolchain's, not the library's). So pytest runs with ``--confcutdir tests/library``, which
leaves out ``tests/conftest.py`` (it imports ``booktools`` and ``nbformat``), and with the
``addopts`` of ``pyproject.toml`` less its ``booktools`` plugins (``-p booktools.<plugin>``).

An environment is made once; a stamp in it (``STAMP``) records what it was made from. When
only the library changed, the library alone is reinstalled; when the requirements or the
Python changed, the environment is made again; ``--recreate`` forces that (a new release
of a framework changes nothing that the stamp sees). The environments are made and tested
one after another, and a table ends the run; the exit status is 1 if any environment
failed to install or to pass its tests.

Usage::

    python -m booktools.version_matrix [--framework torch] [--series lowest] [--recreate]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import shlex
import shutil
import subprocess
import sys
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from packaging.requirements import Requirement
from packaging.version import Version

from booktools.book import ROOT

if sys.version_info >= (3, 11):
    import tomllib
else:  # the tooling runs on 3.11 (README.md); mypy checks this file as 3.10 (pyproject.toml)
    import tomli as tomllib  # type: ignore[import-not-found]

__all__ = [
    "FRAMEWORKS",
    "SERIES",
    "STAMP",
    "TESTS",
    "Environment",
    "Outcome",
    "action",
    "environment_key",
    "library_key",
    "lower_bound_pins",
    "main",
    "pytest_addopts",
    "summary_counts",
    "test_paths",
    "test_tools",
]

FRAMEWORKS = ("torch", "jax", "tensorflow")
"""The extras of ``pyproject.toml``, one per framework, in the order they run."""
SERIES = ("lowest", "newest")
VERSIONS = ROOT / "_build" / "versions"
STAMP = ".version-matrix.json"
"""The stamp file in each environment: what it was made from (``environment_key``, ``library_key``)."""

LIBRARY_TESTS = Path("tests") / "library"
TESTS: dict[str, tuple[Path, ...]] = {
    # Every module of tests/library/ itself (the torch tests) but those in TORCH_EXCLUDED.
    "torch": (LIBRARY_TESTS,),
    "jax": (LIBRARY_TESTS / "jax",),
    "tensorflow": (LIBRARY_TESTS / "tensorflow",),
}
"""Per framework, the test folders it runs (the modules directly in them, see ``test_paths``)."""
TORCH_EXCLUDED: dict[str, str] = {
    "test_cross_framework.py": "compares the three frameworks, so it needs all of them",
    "test_quiz_answers.py": "imports booktools (the quiz keys) and runs every framework",
    "test_benchmark_baselines.py": "tests benchmarks/attention.py, through tests/conftest.py's root fixture",
}
"""Torch test modules of ``tests/library/`` that need more than torch, and why; ``make test`` runs them."""

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


def pytest_addopts(pyproject: dict[str, Any]) -> str:
    """Return ``pyproject.toml``'s pytest ``addopts`` less the plugins of ``booktools``.

    The plugins (``-p booktools.<plugin>``) need the toolchain, not the library.
    """
    words = shlex.split(pyproject["tool"]["pytest"]["ini_options"].get("addopts", ""))
    kept: list[str] = []
    skip = False
    for index, word in enumerate(words):
        if skip:
            skip = False
        elif word == "-p" and index + 1 < len(words) and words[index + 1].startswith("booktools."):
            skip = True
        elif not word.startswith("-pbooktools."):
            kept.append(word)
    return shlex.join(kept)


def test_paths(framework: str, root: Path = ROOT) -> list[Path]:
    """Return the test modules ``framework``'s environments run: those directly in its ``TESTS``
    folders, less ``TORCH_EXCLUDED`` for torch, in name order."""
    excluded = TORCH_EXCLUDED if framework == "torch" else {}
    return [
        path
        for folder in TESTS[framework]
        for path in sorted((root / folder).glob("test_*.py"))
        if path.name not in excluded
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
    root: Path = ROOT
    python_id: str = ""
    """That Python's path and ``sys.version`` (for the stamp), filled in by ``main``."""

    @property
    def name(self) -> str:
        """``<framework>-<series>``, the environment's folder under ``_build/versions/``."""
        return f"{self.framework}-{self.series}"

    @property
    def path(self) -> Path:
        """The environment's folder."""
        return self.root / "_build" / "versions" / self.name

    @property
    def bin_python(self) -> Path:
        """The environment's Python."""
        return self.path / "bin" / "python"

    @property
    def upgrade(self) -> bool:
        """Whether pip upgrades (the newest series) rather than keeping the pins' choice."""
        return self.series == "newest"


@dataclass
class Outcome:
    """What one environment gave: its installed versions and its tests' counts."""

    environment: Environment
    versions: dict[str, str] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=dict)
    summary: str = ""
    error: str = ""
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        """Installed, and pytest passed at least one test and failed none."""
        return not self.error and self.counts.get("passed", 0) > 0


def _run(command: Sequence[str | Path], cwd: Path | None = None) -> None:
    print("$", shlex.join(str(word) for word in command), flush=True)
    subprocess.run([str(word) for word in command], cwd=cwd, check=True)


def _stage_library(root: Path, staging: Path) -> dict[str, bytes]:
    """Copy what the library is built from into ``staging`` (outside the working tree, where
    setuptools writes its ``build/`` folder); return those files' contents by relative path."""
    files = {"pyproject.toml": root / "pyproject.toml", "README.md": root / "README.md"}
    library = sorted((root / "d2l_lib").glob("*.py")) + sorted((root / "d2l_lib" / "quizzes").glob("*.json"))
    files.update({path.relative_to(root).as_posix(): path for path in library})
    if staging.exists():
        shutil.rmtree(staging)
    contents = {}
    for name, source in files.items():
        target = staging / name
        target.parent.mkdir(parents=True, exist_ok=True)
        contents[name] = source.read_bytes()
        target.write_bytes(contents[name])
    return contents


def _pip(env: Environment) -> list[str | Path]:
    return [env.bin_python, "-m", "pip", "install", "--quiet"]


def _prepare(env: Environment, library: dict[str, bytes], staging: Path, recreate: bool) -> None:
    """Make, update or keep ``env`` as its stamp says, and stamp it."""
    environment = environment_key(env.python_id, env.dependencies, env.requirements, env.upgrade)
    library_stamp = library_key(library)
    stamp_path = env.path / STAMP
    todo = "create" if recreate else action(read_stamp(stamp_path), environment, library_stamp)
    print(f"[{env.name}] {todo}: {env.path.relative_to(env.root)}", flush=True)
    if todo == "create":
        if env.path.exists():
            shutil.rmtree(env.path)
        _run([env.python, "-m", "venv", env.path])
        _run([*_pip(env), "--upgrade", "pip"])
        upgrade = ["--upgrade"] if env.upgrade else []
        _run([*_pip(env), *upgrade, f"{staging}[{env.framework}]", *env.requirements])
    elif todo == "reinstall":
        _run([*_pip(env), "--no-deps", "--force-reinstall", staging])
    if todo != "reuse":
        stamp_path.write_text(json.dumps({"environment": environment, "library": library_stamp}) + "\n", "utf-8")


_VERSIONS_SCRIPT = """
import importlib.metadata, json, sys
found = {}
for name in sys.argv[1:]:
    try:
        found[name] = importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        pass
print(json.dumps(found))
"""


def _installed(env: Environment) -> dict[str, str]:
    names = [*PACKAGES[env.framework], "numpy"]
    result = subprocess.run(
        [str(env.bin_python), "-c", _VERSIONS_SCRIPT, *names], capture_output=True, text=True, check=True
    )
    found: dict[str, str] = json.loads(result.stdout)
    return found


def _pytest(env: Environment, addopts: str) -> tuple[int, str]:
    """Run the framework's tests in ``env``; echo pytest's output, return its exit status and last line.

    pytest runs in the environment's folder, so that neither it nor the tests' subprocesses
    import ``d2l_lib`` from the working tree instead of the installed one.
    """
    command = [
        str(env.bin_python),
        "-m",
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        "-o",
        f"addopts={addopts}",
        "--rootdir",
        str(env.root),
        "--confcutdir",
        str(env.root / LIBRARY_TESTS),
        *(str(path) for path in test_paths(env.framework, env.root)),
    ]
    print("$", shlex.join(command), flush=True)
    last = ""
    with subprocess.Popen(command, cwd=env.path, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True) as proc:
        assert proc.stdout is not None
        for line in proc.stdout:
            print(line, end="", flush=True)
            if line.strip():
                last = line.strip().strip("=").strip()
    return proc.returncode, last


def environments(python: str, root: Path = ROOT, frameworks: Iterable[str] = FRAMEWORKS) -> list[Environment]:
    """Return the environments to test, each framework's lowest then newest series, made with ``python``."""
    pyproject = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))
    tools = test_tools((root / "requirements.txt").read_text(encoding="utf-8"))
    found = []
    for framework in frameworks:
        dependencies = [
            *pyproject["project"]["dependencies"],
            *pyproject["project"]["optional-dependencies"][framework],
        ]
        pins = {"lowest": lower_bound_pins(pyproject, framework), "newest": []}
        for series in SERIES:
            found.append(Environment(framework, series, [*pins[series], *tools], dependencies, python, root))
    return found


def _table(outcomes: Sequence[Outcome]) -> str:
    header = ("framework", "series", "installed", "numpy", "passed", "failed", "skipped", "time", "result")
    rows = [header]
    for outcome in outcomes:
        env, counts = outcome.environment, outcome.counts
        installed = ", ".join(
            f"{name} {outcome.versions[name]}" for name in PACKAGES[env.framework] if name in outcome.versions
        )
        failed = counts.get("failed", 0) + counts.get("errors", 0)
        rows.append(
            (
                env.framework,
                env.series,
                installed or "-",
                outcome.versions.get("numpy", "-"),
                str(counts.get("passed", 0)),
                str(failed),
                str(counts.get("skipped", 0)),
                f"{outcome.seconds:.0f}s",
                "ok" if outcome.ok else f"FAILED{': ' + outcome.error if outcome.error else ''}",
            )
        )
    widths = [max(len(row[column]) for row in rows) for column in range(len(header) - 1)]
    lines = ["  ".join(cell.ljust(width) for cell, width in zip(row[:-1], widths)) + "  " + row[-1] for row in rows]
    lines.insert(1, "-" * max(len(line) for line in lines))
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """Make, test and report every environment; return 1 if any failed."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0] if __doc__ else None)
    parser.add_argument("--framework", action="append", choices=FRAMEWORKS, help="only this framework (repeatable)")
    parser.add_argument("--series", action="append", choices=SERIES, help="only this series (repeatable)")
    parser.add_argument("--recreate", action="store_true", help="make the environments again, whatever their stamps")
    parser.add_argument("--python", default=sys.executable, help="the Python the environments are made with")
    args = parser.parse_args(argv)

    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    addopts = pytest_addopts(pyproject)
    python_version = subprocess.run(
        [args.python, "-c", "import sys; print(sys.version)"], capture_output=True, text=True, check=True
    ).stdout.strip()
    selected = [
        env
        for env in environments(args.python, ROOT, args.framework or FRAMEWORKS)
        if env.series in (args.series or SERIES)
    ]
    staging = VERSIONS / "src"
    library = _stage_library(ROOT, staging)
    outcomes = []
    started = time.monotonic()
    for env in selected:
        env.python_id = f"{args.python} ({python_version})"
        outcome = Outcome(env)
        began = time.monotonic()
        try:
            _prepare(env, library, staging, args.recreate)
            outcome.versions = _installed(env)
            print(f"[{env.name}] installed: {json.dumps(outcome.versions)}", flush=True)
            code, outcome.summary = _pytest(env, addopts)
            outcome.counts = summary_counts(outcome.summary)
            if code != 0:
                outcome.error = f"pytest exit status {code}"
        except subprocess.CalledProcessError as error:
            outcome.error = f"{Path(str(error.cmd[0])).name} ... exited with {error.returncode}"
        outcome.seconds = time.monotonic() - began
        print(f"[{env.name}] {outcome.summary or outcome.error}", flush=True)
        outcomes.append(outcome)
    print()
    print(_table(outcomes))
    print(f"\n{len(outcomes)} environments in {time.monotonic() - started:.0f}s")
    return 0 if all(outcome.ok for outcome in outcomes) else 1


if __name__ == "__main__":
    sys.exit(main())
