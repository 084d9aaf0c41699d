"""Make each environment of the version matrix, run its tests, and report them in a table."""

from __future__ import annotations

import json
import shlex
import shutil
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from booktools.checks.version_matrix.plan import (
    FRAMEWORKS,
    LIBRARY_TESTS,
    PACKAGES,
    SERIES,
    STAMP,
    Environment,
    action,
    environment_key,
    environments,
    library_key,
    read_stamp,
    summary_counts,
    test_paths,
)
from booktools.project import Project

# What a wheel of d2l_lib holds besides code: the data of pyproject.toml's package-data.
LIBRARY_SUFFIXES = (".py", ".json")


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


def library_files(project: Project) -> list[Path]:
    """Every file of the package tree ``d2l_lib/`` that a wheel is built from: its modules and
    its data, in every subpackage (caches and build metadata left out)."""
    return sorted(
        path
        for path in project.library_dir.rglob("*")
        if path.is_file() and path.suffix in LIBRARY_SUFFIXES and "__pycache__" not in path.parts
    )


def _stage_library(project: Project, staging: Path) -> dict[str, bytes]:
    """Copy what the library is built from into ``staging`` (outside the working tree, where
    setuptools writes its ``build/`` folder); return those files' contents by relative path."""
    files = {"pyproject.toml": project.root / "pyproject.toml", "README.md": project.root / "README.md"}
    files.update({project.relative(path): path for path in library_files(project)})
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
    print(f"[{env.name}] {todo}: {env.project.relative(env.path)}", flush=True)
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


def pytest_command(env: Environment) -> list[str]:
    """The pytest command of ``env``: its framework's modules, the shared ones for that framework only.

    ``-o addopts=`` gives pytest ``pyproject.toml``'s options less the plugins of ``booktools``
    (``env.addopts``), which the environment does not have."""
    return [
        str(env.bin_python),
        "-m",
        "pytest",
        "-q",
        "-o",
        f"addopts={env.addopts}",
        "-p",
        "no:cacheprovider",
        "--rootdir",
        str(env.project.root),
        "--confcutdir",
        str(env.project.root / LIBRARY_TESTS),
        "--framework",
        env.framework,
        *(str(path) for path in test_paths(env.framework, env.project)),
    ]


def _pytest(env: Environment) -> tuple[int, str]:
    """Run the framework's tests in ``env``; echo pytest's output, return its exit status and last line.

    pytest runs in the environment's folder, so that neither it nor the tests' subprocesses
    import ``d2l_lib`` from the working tree instead of the installed one.
    """
    command = pytest_command(env)
    print("$", shlex.join(command), flush=True)
    last = ""
    with subprocess.Popen(command, cwd=env.path, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True) as proc:
        assert proc.stdout is not None
        for line in proc.stdout:
            print(line, end="", flush=True)
            if line.strip():
                last = line.strip().strip("=").strip()
    return proc.returncode, last


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


def run(
    project: Project,
    frameworks: Sequence[str] = FRAMEWORKS,
    series: Sequence[str] = SERIES,
    recreate: bool = False,
    python: str = sys.executable,
) -> int:
    """``python -m booktools versions``: make, test and report every environment; 1 if any failed."""
    python_version = subprocess.run(
        [python, "-c", "import sys; print(sys.version)"], capture_output=True, text=True, check=True
    ).stdout.strip()
    selected = [env for env in environments(python, project, frameworks) if env.series in series]
    staging = project.work_dir("versions") / "src"
    library = _stage_library(project, staging)
    outcomes = []
    started = time.monotonic()
    for env in selected:
        env.python_id = f"{python} ({python_version})"
        outcome = Outcome(env)
        began = time.monotonic()
        try:
            _prepare(env, library, staging, recreate)
            outcome.versions = _installed(env)
            print(f"[{env.name}] installed: {json.dumps(outcome.versions)}", flush=True)
            code, outcome.summary = _pytest(env)
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
