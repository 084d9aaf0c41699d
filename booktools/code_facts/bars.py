"""The quality bars the book is held to, as data: what each holds, the constant that holds it, where it is checked.

``booktools.code_facts.tables`` renders them, each with the constant's value read from the code, into
``docs/architecture.md``'s bars table; the value is written once, in the constant.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import ModuleType

from booktools.checks import nbval_numbers, nbval_plugin
from booktools.checks.audit import options as audit_options


@dataclass(frozen=True)
class Bar:
    """A quality bar the book is held to, and the constant that holds it."""

    what: str
    module: ModuleType
    name: str
    where: str

    def row(self) -> tuple[str, ...]:
        """The bar's row: what it holds, the constant's qualified name, its value and where it is checked."""
        qualified = f"{self.module.__name__}.{self.name}"
        return (self.what, f"`{qualified}`", f"`{getattr(self.module, self.name)}`", self.where)


BARS = (
    Bar(
        "every Lighthouse score of every page, mobile and desktop, at least",
        audit_options,
        "LIGHTHOUSE_BAR",
        "`make audit`; CI's `audit` job; `tests/tooling/test_ci_workflow.py` pins it",
    ),
    Bar(
        "a printed number's last digit, at most this many units from the stored one",
        nbval_numbers,
        "MAX_LAST_DIGIT_UNITS",
        "nbval in `make pytest`, through `booktools.checks.nbval_plugin`",
    ),
    Bar(
        "a figure's pixels (0-255), root-mean-square difference from the stored one at most",
        nbval_plugin,
        "MAX_PIXEL_RMS",
        "nbval in `make pytest`",
    ),
)
