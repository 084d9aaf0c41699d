"""``booktools.checks.version_matrix`` without making environments: the pins it takes from
``pyproject.toml``, its stamps, the tests it picks and how it reads pytest's summary."""

from __future__ import annotations

import sys

import pytest
import tomllib

from booktools.checks import version_matrix as vm
from booktools.project import Project

PROJECT = Project.here()

PYPROJECT = {
    "project": {
        "dependencies": ["numpy>=1.24", "matplotlib>=3.7"],
        "optional-dependencies": {
            "torch": ["torch>=2.3"],
            "jax": ["jax>=0.4.30", "flax>=0.8.5"],
            "tensorflow": ["tensorflow>=2.16"],
            "odd": ["Some_Package[extra] >=1.2.post1, <3 ; python_version >= '3.10'"],
            "unbounded": ["torch"],
            "upper": ["torch<3"],
        },
    },
}


@pytest.mark.parametrize(
    ("extra", "pins"),
    [
        ("torch", ["torch==2.3.*"]),
        ("jax", ["jax==0.4.30.*", "flax==0.8.5.*"]),
        ("tensorflow", ["tensorflow==2.16.*"]),
        ("odd", ["Some_Package==1.2.*"]),  # the release only: no extras, markers or post release
    ],
)
def test_lowest_pins_are_the_series_each_lower_bound_names(extra, pins):
    assert vm.lower_bound_pins(PYPROJECT, extra) == pins


@pytest.mark.parametrize("extra", ["unbounded", "upper"])
def test_a_requirement_without_a_lower_bound_is_an_error(extra):
    with pytest.raises(ValueError, match="needs exactly one '>=' bound"):
        vm.lower_bound_pins(PYPROJECT, extra)


def test_the_real_pyproject_gives_a_pin_per_requirement_of_each_framework():
    pyproject = tomllib.loads((PROJECT.root / "pyproject.toml").read_text(encoding="utf-8"))
    for framework in vm.FRAMEWORKS:
        pins = vm.lower_bound_pins(pyproject, framework)
        assert len(pins) == len(pyproject["project"]["optional-dependencies"][framework])
        assert pins[0].startswith(f"{framework}==") and all(pin.endswith(".*") for pin in pins)


def test_test_tools_come_from_requirements_txt():
    assert vm.test_tools("# pins\nhypothesis==6.1  # comment\nnumpy==2.0\npytest==9.0\n") == [
        "pytest==9.0",
        "hypothesis==6.1",
    ]
    with pytest.raises(ValueError, match="pins no hypothesis"):
        vm.test_tools("pytest==9.0\n")
    assert len(vm.test_tools((PROJECT.root / "requirements.txt").read_text(encoding="utf-8"))) == 2


def test_the_environments_read_pytest_s_options_less_the_plugin_of_booktools():
    """The environments have the library, not booktools: pytest runs there with pyproject.toml's addopts
    less ``-p booktools.checks.nbval_plugin``, which would fail to import, and with every other option."""
    real = tomllib.loads((PROJECT.root / "pyproject.toml").read_text(encoding="utf-8"))
    addopts = real["tool"]["pytest"]["ini_options"]["addopts"]
    assert "-p booktools.checks.nbval_plugin" in addopts
    expected = " ".join(addopts.replace("-p booktools.checks.nbval_plugin", "").split())
    assert vm.library_addopts(real) == expected and "--import-mode=importlib" in expected
    for env in vm.environments(sys.executable, PROJECT):
        command = vm.pytest_command(env)
        assert command[command.index("-o") + 1] == f"addopts={expected}", command
        assert "booktools" not in " ".join(command[: command.index("--rootdir")]), command


@pytest.mark.parametrize(
    ("addopts", "kept"),
    [
        ("-p booktools.checks.nbval_plugin --strict-markers", "--strict-markers"),
        ("-x -pbooktools.checks.nbval_numbers -p no:cacheprovider", "-x -p no:cacheprovider"),
        ("-p xdist -p booktools.checks.nbval_numbers --import-mode=importlib", "-p xdist --import-mode=importlib"),
        ("--strict-markers", "--strict-markers"),
        ("", ""),
    ],
)
def test_library_addopts_drops_only_the_plugins_of_booktools(addopts, kept):
    assert vm.library_addopts({"tool": {"pytest": {"ini_options": {"addopts": addopts}}}}) == kept


def test_environments_pin_the_lowest_series_and_let_pip_resolve_the_newest():
    envs = vm.environments(sys.executable, PROJECT)
    assert [env.name for env in envs] == [f"{f}-{s}" for f in vm.FRAMEWORKS for s in vm.SERIES]
    for env in envs:
        assert env.path == PROJECT.root / "_build" / "versions" / env.name
        assert env.project == PROJECT
        pins = [r for r in env.requirements if r.startswith(env.framework)]
        assert (env.series == "lowest") == bool(pins) == (not env.upgrade)
        assert any(r.startswith("pytest==") for r in env.requirements)


# ------------------------------------------------------------------ stamps
def test_the_environment_key_changes_with_every_input():
    base = vm.environment_key("py 3.11", ["torch>=2.3"], ["torch==2.3.*"], upgrade=False)
    assert base == vm.environment_key("py 3.11", ["torch>=2.3"], ["torch==2.3.*"], upgrade=False)
    others = {
        vm.environment_key("py 3.12", ["torch>=2.3"], ["torch==2.3.*"], upgrade=False),
        vm.environment_key("py 3.11", ["torch>=2.4"], ["torch==2.3.*"], upgrade=False),
        vm.environment_key("py 3.11", ["torch>=2.3"], ["torch==2.4.*"], upgrade=False),
        vm.environment_key("py 3.11", ["torch>=2.3"], ["torch==2.3.*"], upgrade=True),
        vm.environment_key("py 3.11", [], ["torch>=2.3", "torch==2.3.*"], upgrade=False),  # no run-together
    }
    assert base not in others and len(others) == 5


def test_the_library_key_follows_names_and_contents_not_order():
    files = {"pyproject.toml": b"a", "d2l_lib/torch.py": b"b"}
    key = vm.library_key(files)
    assert key == vm.library_key(dict(reversed(files.items())))
    assert key != vm.library_key({**files, "d2l_lib/torch.py": b"c"})
    assert key != vm.library_key({"pyproject.toml": b"a", "d2l_lib/jax.py": b"b"})


@pytest.mark.parametrize(
    ("stamp", "expected"),
    [
        (None, "create"),
        ({}, "create"),
        ({"environment": "other", "library": "lib"}, "create"),
        ({"environment": "env", "library": "old"}, "reinstall"),
        ({"environment": "env"}, "reinstall"),
        ({"environment": "env", "library": "lib"}, "reuse"),
    ],
)
def test_action_from_the_stamp(stamp, expected):
    assert vm.action(stamp, "env", "lib") == expected


def test_read_stamp_takes_only_a_stamp(tmp_path):
    path = tmp_path / vm.STAMP
    assert vm.read_stamp(path) is None  # missing
    path.write_text("not json", encoding="utf-8")
    assert vm.read_stamp(path) is None
    path.write_text('["a list"]', encoding="utf-8")
    assert vm.read_stamp(path) is None
    path.write_text('{"environment": 1}', encoding="utf-8")
    assert vm.read_stamp(path) is None
    path.write_text('{"environment": "e", "library": "l"}', encoding="utf-8")
    assert vm.read_stamp(path) == {"environment": "e", "library": "l"}


# ------------------------------------------------------------------ tests and their summary
def test_each_framework_runs_the_shared_modules_and_its_own_folder():
    library = PROJECT.root / "tests" / "library"
    shared = {path.name for path in library.glob("test_*.py")} - set(vm.EXCLUDED)
    for name in vm.EXCLUDED:
        assert (library / name).exists(), f"{name} is excluded but gone"
    for framework in vm.FRAMEWORKS:
        paths = vm.test_paths(framework, PROJECT)
        assert {path.name for path in paths if path.parent == library} == shared, framework
        assert any(path.parent == library / framework for path in paths), framework
        assert all(path.parent in (library, library / framework) for path in paths), framework


def test_each_environment_selects_its_framework_in_the_shared_suite():
    for env in vm.environments(sys.executable, PROJECT):
        command = vm.pytest_command(env)
        assert command[command.index("--framework") + 1] == env.framework


@pytest.mark.parametrize(
    ("line", "counts"),
    [
        ("250 passed in 9.10s", {"passed": 250}),
        (
            "3 failed, 245 passed, 2 skipped, 1 warning in 1:02",
            {"failed": 3, "passed": 245, "skipped": 2, "warnings": 1},
        ),
        ("1 error in 0.5s", {"errors": 1}),
        ("no tests ran in 0.01s", {}),
    ],
)
def test_summary_counts(line, counts):
    assert vm.summary_counts(line) == counts


def test_the_staged_library_holds_every_package_and_its_data(project: Project):
    """The copy a wheel is built from has every module of every package pyproject.toml lists
    (d2l_lib.exercises was once missing from it, and no environment could install the
    library) and the data its package-data names."""
    from booktools.checks.version_matrix.runner import library_files

    staged = {project.relative(path) for path in library_files(project)}
    setuptools = tomllib.loads((project.root / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    for package in setuptools["packages"]:
        folder = project.root / package.replace(".", "/")
        modules = {project.relative(path) for path in folder.glob("*.py")}
        assert modules <= staged, package
    for package, patterns in setuptools["package-data"].items():
        folder = project.root / package.replace(".", "/")
        for pattern in patterns:
            data = {project.relative(path) for path in folder.glob(pattern)}
            assert data and data <= staged, (package, pattern)
    assert not any("__pycache__" in name for name in staged)
