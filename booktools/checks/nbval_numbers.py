"""Compare printed text as nbval does, except that decimal numbers may differ in their last digit.

The last digit of a printed float depends on which kernels the CPU runs (AVX-512
or not, oneDNN or not, XLA's code generation), so a notebook whose outputs were
stored on one machine can print ``0.5191`` where it stored ``0.5190`` on another.
Here a text is split into its *numbers*, every token written with a decimal point
or an exponent (``0.5190``, ``-1e+06``, ``3.2e-05``, ``2.``), and everything else,
its *skeleton*: words, integers (shapes, counts, indices), dtypes, ``grad_fn``,
punctuation and line breaks. Two texts agree when

- their skeletons are equal character by character (so the count of numbers, their
  order and the lines they stand on are equal too), except for the spaces or tabs
  on either side of a number, which printers use to align columns of numbers of
  different widths (``-0.0001`` against `` 0.0000``);
- each pair of numbers has the same exponent, as written, and differs by at most
  ``booktools.configuration.bars.MAX_LAST_DIGIT_UNITS`` units of its last printed digit. Where the two numbers are
  printed with different numbers of digits (NumPy prints the shortest digits that
  identify a float32, so ``0.0236617`` against ``0.02366173``), the coarser digit
  is the unit: the shorter number claims no more than that.

``nan``, ``inf`` and version strings (``2.13.0``) are not numbers here, so they
are compared character by character. The bar is the smallest that lets the book's
notebooks replay with PyTorch, oneDNN, MKL and XLA forced onto other kernels
(``tests/tooling/test_other_kernels.py``); a doctest's ``NUMBER`` option allows one
unit too.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal

from booktools.configuration.bars import MAX_LAST_DIGIT_UNITS

# A decimal number with its sign: a point or an exponent is required, so integers stay in the
# skeleton. Not part of a word or a dotted version string; a full stop may follow it.
NUMBER = re.compile(
    r"[ \t]*(?<![\w.])"
    r"(?P<number>[-+]?(?P<digits>\d+\.\d*|\.\d+|\d+(?=[eE]))(?P<exponent>[eE][-+]?\d+)?)"
    r"(?![\w]|\.\d)[ \t]*"
)


@dataclass(frozen=True)
class Number:
    """One number of a text, as printed."""

    text: str
    line: int  # 1-based

    @property
    def _parts(self) -> re.Match[str]:
        match = NUMBER.fullmatch(self.text)
        assert match is not None, self.text
        return match

    @property
    def value(self) -> Decimal:
        """The number's value, exactly as printed."""
        return Decimal(self.text)

    @property
    def exponent(self) -> str:
        """The exponent as printed (``e-05``), or ``""``."""
        return self._parts["exponent"] or ""

    @property
    def unit(self) -> Decimal:
        """The value of one unit of the last printed digit (``1e-4`` for ``0.5190``, ``1e-6`` for ``3.2e-05``)."""
        digits = self._parts["digits"]
        decimals = len(digits) - digits.index(".") - 1 if "." in digits else 0
        power = int(self.exponent[1:] or 0) - decimals
        return Decimal(1).scaleb(power)


@dataclass(frozen=True)
class Mismatch:
    """A pair of numbers further apart than the tolerance, or a difference outside the numbers."""

    message: str


def split(text: str) -> tuple[list[str], list[Number]]:
    """Return the skeleton of ``text`` (the pieces between numbers) and its numbers."""
    pieces, numbers, start = [], [], 0
    for match in NUMBER.finditer(text):
        pieces.append(text[start : match.start()])
        numbers.append(Number(match["number"], text.count("\n", 0, match.start("number")) + 1))
        start = match.end()
    pieces.append(text[start:])
    return pieces, numbers


def units_apart(stored: Number, fresh: Number) -> Decimal:
    """How many units of the coarser last digit of the two lie between them."""
    return abs(stored.value - fresh.value) / max(stored.unit, fresh.unit)


def compare(stored: str, fresh: str, tolerance: int = MAX_LAST_DIGIT_UNITS) -> list[Mismatch]:
    """Return why ``fresh`` does not print the same as ``stored``; an empty list when it does."""
    if stored == fresh:
        return []
    stored_pieces, stored_numbers = split(stored)
    fresh_pieces, fresh_numbers = split(fresh)
    if len(stored_numbers) != len(fresh_numbers):
        return [Mismatch(f"the fresh text has {len(fresh_numbers)} numbers, the stored one {len(stored_numbers)}")]
    if stored_pieces != fresh_pieces:
        index = next(i for i, (a, b) in enumerate(zip(stored_pieces, fresh_pieces)) if a != b)
        return [
            Mismatch(
                f"the text differs outside the numbers: stored {stored_pieces[index]!r}, fresh {fresh_pieces[index]!r}"
            )
        ]
    mismatches = []
    for index, (old, new) in enumerate(zip(stored_numbers, fresh_numbers), start=1):
        where = f"number {index} (line {old.line})"
        if old.exponent != new.exponent:
            mismatches.append(Mismatch(f"{where}: stored {old.text}, fresh {new.text}: the exponent differs"))
            continue
        apart = units_apart(old, new)
        if apart > tolerance:
            mismatches.append(
                Mismatch(
                    f"{where}: stored {old.text}, fresh {new.text}: {apart.normalize():f} units of the last digit "
                    f"apart, more than the {tolerance} allowed"
                )
            )
    return mismatches
