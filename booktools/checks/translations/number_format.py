"""Numbers in a translation's prose, in the edition's own format, as the reader gets them.

The prose is read as the book shows it: with each measured figure filled in from the
edition's own stored outputs, in the edition's number format (``chapters/<lang>/strings.yml``,
``numbers``; ``booktools.sources.measured``), and without math, code or link targets
(``booktools.checks.translations.markdown``). In it:

- a decimal fraction uses the edition's decimal mark (Indonesian ``0,5``, not ``0.5``);
  a version (``2.13.0``, ``PyTorch 2.5``) is not a fraction;
- a number of five or more digits groups its thousands with the edition's separator
  (Indonesian ``65.504``; ``$n = 8192$`` is math, and stays as written); a four-digit
  number is grouped too, unless it is a year;
- a number is followed by a space before a unit written in Latin letters (``68.5 MiB``,
  ``4 ms``, ``15 GB/s``), as each edition writes it (a product's name, ``H100 80GB``, is a name).
"""

from __future__ import annotations

import re

from booktools.checks.translations.markdown import parsed
from booktools.checks.translations.prose import quote
from booktools.sources.measured import MeasuredError, fill_text, without_placeholders
from booktools.sources.strings import NumberStrings

UNITS = ("KiB", "MiB", "GiB", "TiB", "KB", "MB", "GB", "TB", "GB/s", "GFLOP/s", "GFLOPs", "FLOPs", "ms", "µs", "ns")
# a Korean particle may follow the unit: 68.5 MiB입니다
UNIT_GLUED = re.compile(r"\d(?:" + "|".join(re.escape(unit) for unit in UNITS) + r")(?![A-Za-z0-9_/])")
YEAR = re.compile(r"(?:19|20)\d\d")
# A version follows the name of what it versions: "PyTorch 2.5", "torch>=2.5", "versi 2.13", "버전 2.13".
VERSIONED = re.compile(
    r"(?:(?:PyTorch|torch|JAX|jax|jaxlib|TensorFlow|Keras|Python|CUDA|cuDNN|NumPy|Flax|matplotlib)\W{0,3}"
    r"|(?:versi|version|버전)\b[^.]{0,40})$",
    re.IGNORECASE,
)
MODEL = re.compile(r"\b[A-Z]+\d+\s+$")  # a product's name: "H100 80GB HBM3" names a GPU, it measures nothing


def _number(numbers: NumberStrings) -> re.Pattern[str]:
    """A number as written: digits, with any of the two marks between digit groups."""
    marks = re.escape(numbers.decimal + numbers.thousands + ".,")
    return re.compile(rf"(?<![\w.,])\d+(?:[{marks}]\d+)*(?![A-Za-z0-9_])")  # a Korean counter may follow: 1000개


def number_problems(text: str, numbers: NumberStrings) -> list[str]:
    """Describe each number of ``text`` (plain prose) not written in the format ``numbers`` gives."""
    problems = []
    thousands = re.escape(numbers.thousands)
    grouped = re.compile(rf"\d{{1,3}}(?:{thousands}\d{{3}})+(?:{re.escape(numbers.decimal)}\d+)?")
    other_decimal = "." if numbers.decimal == "," else ","
    for match in _number(numbers).finditer(text):
        written = match.group(0)
        parts = re.split(r"[.,]", written)
        if (len(parts) >= 3 and not grouped.fullmatch(written)) or VERSIONED.search(text[: match.start()]):
            continue  # a version (2.13.0, PyTorch 2.5), not a quantity
        whole = written.split(numbers.decimal)[0]
        if other_decimal in written and not grouped.fullmatch(written):
            problems.append(f"{written!r}: write the decimal mark as {numbers.decimal!r}")
        elif len(whole) >= 4 and whole.isdigit() and not (len(whole) == 4 and YEAR.fullmatch(whole)):
            problems.append(f"{written!r}: group the thousands with {numbers.thousands!r} (or write it as math)")
    for match in UNIT_GLUED.finditer(text):
        if MODEL.search(text[: match.start()].rsplit(" ", 1)[0] + " "):
            continue
        problems.append(f"{match.group(0)!r}: a space between the number and its unit")
    return problems


def check_number_format(source: str, numbers: NumberStrings, figures: dict[str, dict[str, float]]) -> list[str]:
    """Report the numbers of a translated markdown cell not in its edition's format, as the reader reads them.

    Args:
        source: the cell's markdown.
        numbers: the edition's number format.
        figures: the page's measured figures, by cell id (``booktools.sources.measured.page_figures``);
            a figure that cannot be filled in reads as ``0`` (``compare_figures`` reports it).
    """
    try:
        text = fill_text(source, figures, numbers)
    except MeasuredError:  # compare_figures and the build name the figure that cannot be filled in
        text = without_placeholders(source, "0")
    problems = []
    for line, block in parsed(text).blocks:
        for problem in number_problems(block, numbers):
            problems.append(f"number format, line {line}: {problem}, in {quote(block, 70)}")
    return problems
