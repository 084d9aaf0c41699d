"""Each quality bar's value lives in ``booktools.configuration.bars`` alone, and every checker reads it there.

A bar names the constant that holds its value, every constant of the module is a bar, and the checkers'
defaults (the audit's ``--fail-under``, nbval's number and figure tolerances, the axe test's blocking impacts) are
those constants; no other module of booktools or of the tests assigns one of those names. (A test's own limits,
such as ``tests/book/test_page_weight.py``'s budgets, are that test's early warnings, not bars: README.md.)
"""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

from booktools.checks import nbval_figures, nbval_numbers, nbval_plugin
from booktools.checks.audit import options as audit_options
from booktools.configuration import bars

PACKAGE = Path(bars.__file__).resolve().parents[1]  # booktools/
PROJECT_ROOT = PACKAGE.parent


def test_each_bar_names_the_constant_that_holds_its_value():
    for bar in bars.BARS:
        if bar.value is None:  # a word cap: each page's own, in chapters/pages.yml
            assert bar.constant == "", bar
        else:
            assert getattr(bars, bar.constant) == bar.value, bar
        assert bar.holds and bar.enforced_by, bar


def test_every_constant_of_the_module_is_a_bar():
    values = vars(bars).items()
    constants = {
        name
        for name, value in values
        if name.isupper()
        and (isinstance(value, (int, float)) or (isinstance(value, tuple) and all(isinstance(v, str) for v in value)))
    }
    assert constants == {bar.constant for bar in bars.BARS if bar.constant}


def test_the_checkers_default_to_the_bars():
    assert audit_options.defaults()["fail_under"] == bars.LIGHTHOUSE_BAR
    assert inspect.signature(nbval_numbers.compare).parameters["tolerance"].default == bars.MAX_LAST_DIGIT_UNITS
    reconcile = inspect.signature(nbval_plugin.reconcile_numbers).parameters["tolerance"]
    assert reconcile.default == bars.MAX_LAST_DIGIT_UNITS
    assert inspect.signature(nbval_figures.compare_pngs).parameters["tolerance"].default == bars.MAX_PIXEL_RMS
    accessibility = ast.parse((PROJECT_ROOT / "tests" / "book" / "test_accessibility.py").read_text(encoding="utf-8"))
    blocking = [
        node.value
        for node in accessibility.body
        if isinstance(node, ast.Assign) and any(getattr(target, "id", "") == "BLOCKING" for target in node.targets)
    ]
    assert [getattr(value, "id", None) for value in blocking] == ["AXE_BLOCKING_IMPACTS"], "axe's bar is bars.py's"


def test_no_other_module_defines_a_bar():
    names = {bar.constant for bar in bars.BARS if bar.constant}
    home = Path(bars.__file__).resolve()
    for path in sorted([*PACKAGE.rglob("*.py"), *(PROJECT_ROOT / "tests").rglob("*.py")]):
        if path.resolve() == home:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)]
            defined = {target.id for target in targets if isinstance(target, ast.Name)}
            assert not defined & names, f"{path}: defines {sorted(defined & names)}, a bar of {home.name}"
