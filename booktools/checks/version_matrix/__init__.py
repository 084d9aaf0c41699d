"""The library's tests on the lowest and the newest release of each framework it allows (``make test-versions``).

``pyproject.toml`` gives each framework as an extra with a lower bound (``torch>=2.3``,
``jax>=0.4.30`` with ``flax>=0.8.5``, ``tensorflow>=2.16``). For every framework and each of
two series this builds a virtual environment ``_build/versions/<framework>-<series>/``:

- the lowest series, ``lowest``: ``d2l_lib[<extra>]`` with every requirement of the extra pinned to the series its
  lower bound names (``torch>=2.3`` gives ``torch==2.3.*``, ``flax>=0.8.5`` gives
  ``flax==0.8.5.*``), so the bound in ``pyproject.toml`` stays the one fact;
- the newest series, ``newest``: ``d2l_lib[<extra>]`` as ``pip install --upgrade`` resolves it.

Nothing else is pinned: NumPy and matplotlib are whatever pip resolves beside the framework,
as a user's ``pip install "d2l_lib[torch]"`` gets them. The library is installed from a copy
of ``pyproject.toml``, ``README.md`` and ``d2l_lib/`` (a real, non-editable install, built
outside the working tree), with pytest and hypothesis at the versions ``requirements.txt`` pins.

Each environment then runs the tests of its framework (``TESTS``), the ones that need that
framework alone: no other framework and not ``booktools`` (whose dependencies are the
toolchain's, not the library's): the shared suite directly in ``tests/library/``, for this
framework only (``--framework``), and the framework's own folder beside it. So pytest runs
with ``--confcutdir tests/library``, which leaves out ``tests/conftest.py`` (it imports
``booktools`` and ``nbformat``), and with ``pyproject.toml``'s ``addopts`` less the plugin of ``booktools``
they name (``-p booktools.checks.nbval_plugin``; ``library_addopts``).

An environment is made once; a stamp in it (``STAMP``) records what it was made from. When
only the library changed, the library alone is reinstalled; when the requirements or the
Python changed, the environment is made again; ``--recreate`` forces that (a new release
of a framework changes nothing that the stamp sees). The environments are made and tested
one after another, and a table ends the run; the exit status is 1 if any environment
failed to install or to pass its tests.

- ``plan``: what the matrix runs (the environments, their pins, stamps and test modules), with no side effects.
- ``runner``: each environment made, its tests run, and the table of results.

Usage::

    python -m booktools versions [--framework torch] [--series lowest] [--recreate]
"""

from booktools.checks.version_matrix.plan import (
    EXCLUDED,
    FRAMEWORKS,
    SERIES,
    STAMP,
    TESTS,
    Environment,
    action,
    environment_key,
    environments,
    library_addopts,
    library_key,
    lower_bound_pins,
    read_stamp,
    summary_counts,
    test_paths,
    test_tools,
)
from booktools.checks.version_matrix.runner import Outcome, pytest_command, run

__all__ = [
    "FRAMEWORKS",
    "SERIES",
    "STAMP",
    "TESTS",
    "EXCLUDED",
    "Environment",
    "Outcome",
    "action",
    "environment_key",
    "environments",
    "library_addopts",
    "library_key",
    "lower_bound_pins",
    "pytest_command",
    "read_stamp",
    "run",
    "summary_counts",
    "test_paths",
    "test_tools",
]
