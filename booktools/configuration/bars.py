"""The quality bars the book is held to: each bar's value, what it holds and what enforces it, in one place.

Every checker reads its bar from here (the audit's ``--fail-under`` default, nbval's number and figure
comparisons), and ``booktools.code_facts.tables`` renders :data:`BARS` into docs/architecture.md's bars table,
so a value is written once, here. One bar has no value here: a page's word cap is data of the page, its
``words`` in ``chapters/pages.yml``, read by ``booktools.sources.page_manifest.word_caps``.

This module imports nothing, so the audit's ``--help`` and the nbval plugin read it at no cost;
``tests/tooling/test_bars.py`` holds the checkers' defaults to it and lets no other module define a bar.
"""

from __future__ import annotations

from dataclasses import dataclass

LIGHTHOUSE_BAR = 95
"""The lowest Lighthouse score allowed, in every category, of every page, mobile and desktop (issue 39)."""

MAX_LAST_DIGIT_UNITS = 1
"""How many units of its last printed digit a replayed number may differ from the stored one: the fewest with
which the notebooks replay on other CPU kernels (``tests/tooling/test_other_kernels.py``). The project allows at
most 2; 1 is enough, so the bar is the stricter one, and ``tests/tooling/test_nbval_numbers.py`` shows a number 2
units off failing."""

AXE_BLOCKING_IMPACTS = ("serious", "critical")
"""The axe-core impacts that fail the accessibility test; a minor or moderate one does not fail it."""

MAX_PIXEL_RMS = 2.0
"""The largest root-mean-square difference, on 0-255 pixel values, between a replayed figure and the stored one."""


@dataclass(frozen=True)
class Bar:
    """A quality bar: the constant of this module that holds its value, what it holds, and what enforces it.

    ``constant`` is empty and ``value`` None for a bar whose values are each page's own (``chapters/pages.yml``).
    """

    constant: str
    value: int | float | tuple[str, ...] | None
    holds: str
    enforced_by: str


BARS = (
    Bar(
        "LIGHTHOUSE_BAR",
        LIGHTHOUSE_BAR,
        "every Lighthouse score, mobile and desktop, of every page the audit measures (the landing page, each "
        "edition's pages, API and search pages: `booktools.checks.audit.site_audit.site_pages`), at least",
        "`booktools.checks.audit.site_audit.shortfalls`, at the default of the audit's `--fail-under`: "
        "`make audit`, CI's `audit` job and `pages.yml`'s `build` job, which deploys no site under it "
        "(`tests/tooling/test_ci_workflow.py` checks that both workflows run the audit at this bar)",
    ),
    Bar(
        "AXE_BLOCKING_IMPACTS",
        AXE_BLOCKING_IMPACTS,
        "axe-core's violations on every HTML page of the built site, light and dark mode: none of these impacts",
        "`tests/book/test_accessibility.py` (in `make pytest`)",
    ),
    Bar(
        "MAX_LAST_DIGIT_UNITS",
        MAX_LAST_DIGIT_UNITS,
        "a printed number's last digit, at most this many units from the stored one",
        "`booktools.checks.nbval_numbers.compare`, which `booktools.checks.nbval_plugin` hooks into nbval "
        "where `make pytest` replays the notebooks",
    ),
    Bar(
        "MAX_PIXEL_RMS",
        MAX_PIXEL_RMS,
        "a figure's pixels (0-255), root-mean-square difference from the stored one at most",
        "`booktools.checks.nbval_figures.compare_pngs`, in nbval where `make pytest` replays the notebooks",
    ),
    Bar(
        "",
        None,
        "words in each framework's tab of a page, at most",
        "`tests/book/test_page_words.py` (in `make pytest`), counting the built English page with "
        "`booktools.checks.page_words`, which `python -m booktools page-words` runs by hand; "
        "`python -m booktools check` only checks that each cap is a positive number or null",
    ),
)
"""Every quality bar, in the order docs/architecture.md's bars table lists them."""
