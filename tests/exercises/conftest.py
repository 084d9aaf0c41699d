"""Fixtures of the exercise checks' tests: the frameworks to test and the readers' answers.

The frameworks are selected as for the library's tests (``--framework``,
``$D2L_TEST_FRAMEWORKS``): the plugin ``tests/frameworks.py`` does it for both (a test module
finds it as ``sys.modules["d2l_tests_frameworks"]``). Each test that takes ``lib`` runs once per
framework; the fixture ``answers`` is a function, ``answers(framework)`` the module
``answers/<framework>_answers.py`` (its ``ANSWERS``, by exercise), with the cost model's answers
of ``answers/cost.py``, which are plain Python and the same in every framework.
"""

from __future__ import annotations

import functools
import importlib.util
import sys
from pathlib import Path

import pytest

from d2l_lib import exercises

HERE = Path(__file__).resolve().parent


def _load(name: str, path: Path):
    """Import ``path`` as module ``name`` once per process (Flax's dataclasses need it in sys.modules)."""
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, path)
        sys.modules[name] = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(sys.modules[name])
    return sys.modules[name]


_selection = _load("d2l_tests_frameworks", HERE.parent / "frameworks.py")
# The plugin's hooks and fixture, as this conftest's (re-exported: pytest finds them here).
pytest_addoption = _selection.pytest_addoption
pytest_configure = _selection.pytest_configure
pytest_report_header = _selection.pytest_report_header
pytest_generate_tests = _selection.pytest_generate_tests
lib = _selection.lib
_load("d2l_tests_exercise_checking", HERE / "checking.py")  # the test modules' helpers


@functools.cache
def _answers(framework: str) -> dict:
    """The readers' answers in ``framework``, by exercise: ``right`` (a list), ``mistakes`` (by name),
    ``stub``, ``ellipsis``, ``raises`` and ``wrong_types`` (by name)."""
    module = _load(f"d2l_tests_{framework}_answers", HERE / "answers" / f"{framework}_answers.py")
    cost = _load("d2l_tests_cost_answers", HERE / "answers" / "cost.py")
    return module.ANSWERS | {
        "attention-cost": {
            "right": [cost.right],
            "mistakes": cost.MISTAKES,
            "stub": cost.stub,
            "ellipsis": cost.ellipsis_body,
            "raises": cost.by_arrays,
            "wrong_types": {"tuple": cost.tuple_not_dict, "class": dict},
        }
    }


@pytest.fixture(scope="session")
def answers():
    """``answers(framework)``: the readers' answers in ``framework``, by exercise (see ``_answers``)."""
    return _answers


@pytest.fixture(autouse=True)
def _fresh_hints():
    """Every test starts with no hint given (``hint`` counts them per session)."""
    exercises._hints_given.clear()
    yield
    exercises._hints_given.clear()
