"""The audit: Lighthouse on the book's pages (the landing page, each edition's pages, API and
search; not the decks), mobile and desktop, as one table.

The built site (``_build/html``) is served as a static host serves it
(``booktools.checks.audit.static_host``: gzip, cache headers, 127.0.0.1 only) for
the time of the audit, and Lighthouse (``booktools.checks.audit.lighthouse``)
audits, one after the other so that no run slows another:

- the landing page, ``index.html``;
- in every edition, every page of ``_toc.yml`` (the edition's index first), the
  API page and the search page;

each with the ``mobile`` and the ``desktop`` preset. The table has, per page and
preset, the four category scores (0-100) and the key metrics: first and largest
contentful paint, total blocking time, cumulative layout shift, speed index and
the bytes transferred. This module audits the site as it is; ``python -m booktools audit``
first brings ``_build/html`` up to date through ``booktools.pipeline.stages``, whose stages
re-run when the digest of what they read has changed, and with every option at its default
the audit is itself that pipeline's ``audit`` stage, which measures every time it is asked
(scores depend on the machine's load, so a pass is not kept as current); ``--site`` audits
another folder as it is, and builds nothing. Under the table are the
audits that cost a category under ``--fail-under`` its points, and the Lighthouse reports
stay in ``_build/audit/``. The exit status is 1 when a score is under ``--fail-under``
(:data:`booktools.configuration.bars.LIGHTHOUSE_BAR` unless told).

Usage::

    python -m booktools audit [--page SUBSTRING ...] [--preset mobile|desktop] [--fail-under N]

Not part of ``make test``: a full audit takes minutes (README.md, "Testing", lists it under "Not in ``make test``").
"""

from __future__ import annotations

import argparse
import posixpath
import sys
import time
from pathlib import Path

from booktools.checks.audit.lighthouse import CATEGORIES, METRICS, LighthouseError, Result, cli
from booktools.checks.audit.lighthouse import audit as lighthouse_audit
from booktools.checks.audit.options import PRESETS, TABLE_FILE
from booktools.checks.audit.static_host import serving
from booktools.project import Project
from booktools.website.api_page import PAGE as API_PAGE

SEARCH_PAGE = "search"
LANDING = "index.html"
SHORT = {"performance": "perf", "accessibility": "a11y", "best-practices": "best", "seo": "seo"}


def site_pages(project: Project) -> list[str]:
    """The pages the audit measures, as paths under ``_build/html``: the landing page first, then each edition's
    pages of ``_toc.yml``, its API page and its search page. Not the lecture decks (reveal.js pages d2lbook and
    nbconvert make, checked by ``tests/book/test_accessibility.py`` and ``test_slide_layout.py``) nor Sphinx's
    ``genindex.html``, which no page links."""
    names = [posixpath.basename(entry) for entry in project.toc_entries()] + [API_PAGE, SEARCH_PAGE]
    return [LANDING] + [f"{code}/{name}.html" for code in project.editions() for name in names]


def _metric(result: Result, audit: str) -> str:
    value = result.metrics.get(audit)
    if value is None:
        return "-"
    unit = METRICS[audit][1]
    if unit == "s":
        return f"{value / 1000:.1f}"
    if unit == "ms":
        return f"{value:.0f}"
    if unit == "KiB":
        return f"{value / 1024:.0f}"
    return f"{value:.3f}"


def table(rows: list[tuple[str, Result]]) -> str:
    """The results as a Markdown table: page, preset, the four scores, the key metrics."""
    header = ["page", "preset", *(SHORT[name] for name in CATEGORIES)]
    header += [f"{column} {unit}".strip() if unit != column else column for column, unit in METRICS.values()]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for page, result in rows:
        scores = ["-" if result.scores[name] is None else str(result.scores[name]) for name in CATEGORIES]
        metrics = [_metric(result, audit) for audit in METRICS]
        lines.append("| " + " | ".join([page, result.preset, *scores, *metrics]) + " |")
    return "\n".join(lines)


def shortfalls(rows: list[tuple[str, Result]], fail_under: int) -> list[str]:
    """One line per score under ``fail_under``: the page, preset, category and the audits that cost it points."""
    lines = []
    for page, result in rows:
        if result.error:
            lines.append(f"{page} ({result.preset}): Lighthouse error: {result.error}")
        for name in CATEGORIES:
            score = result.scores[name]
            if score is None or score < fail_under:
                lines.append(f"{page} ({result.preset}) {name} {score}: {'; '.join(result.failed[name]) or '-'}")
    return lines


def report_folder(project: Project, site: Path) -> Path:
    """Where the audit of the built site ``site`` writes its reports and its table (``TABLE_FILE``)."""
    return project.work_dir("audit") / site.resolve().name


def run(project: Project, args: argparse.Namespace) -> int:
    """Serve the site, audit the chosen pages and presets, print the table; 1 if a score is under the bar.

    The site is as it is: ``python -m booktools audit`` brings it up to date first (``booktools.pipeline.stages``).
    """
    site = args.site or project.site_dir
    pages = [page for page in site_pages(project) if not args.page or any(part in page for part in args.page)]
    presets = args.preset or list(PRESETS)
    missing = [page for page in pages if not (site / page).is_file()]
    if missing:
        print(f"audit: not in the built site (run make book): {', '.join(missing)}", file=sys.stderr)
        return 1
    try:
        cli()
    except LighthouseError as error:
        print(f"audit: {error}", file=sys.stderr)
        return 1
    reports = report_folder(project, site)
    rows: list[tuple[str, Result]] = []
    started = time.monotonic()
    with serving(site) as base:
        for page in pages:
            for preset in presets:
                report = reports / f"{page.replace('/', '-').removesuffix('.html')}-{preset}.json"
                try:
                    result = lighthouse_audit(f"{base}/{page}", preset, report, tuple(args.block))
                except (LighthouseError, OSError) as error:
                    print(f"audit: {error}", file=sys.stderr)
                    return 1
                rows.append((page, result))
                scores = " ".join(f"{SHORT[name]} {result.scores[name]}" for name in CATEGORIES)
                print(f"{page} {preset}: {scores} (host benchmark {result.benchmark:.0f})", flush=True)
    text = table(rows)
    benchmarks = sorted(result.benchmark for _, result in rows)
    (reports / TABLE_FILE).write_text(text + "\n", encoding="utf-8")
    print(f"\n{text}\n")
    print(
        f"{len(rows)} runs in {time.monotonic() - started:.0f} s; Lighthouse's host benchmark "
        f"{benchmarks[0]:.0f}-{benchmarks[-1]:.0f} (lower: a busier machine, slower simulated metrics); "
        f"reports in {project.relative(reports)}/"
    )
    below = shortfalls(rows, args.fail_under)
    if below:
        print(f"\nunder {args.fail_under}:")
        print("\n".join(f"  {line}" for line in below))
    return 1 if below else 0
