"""One Lighthouse run: the pinned npm ``lighthouse`` with the system Chromium, read into a :class:`Result`.

``make audit`` installs Lighthouse (npm ``lighthouse``, pinned by
``booktools/checks/audit/package-lock.json``) into ``.venv/share/d2l-book/lighthouse/``
with ``npm ci``; it drives Debian's ``chromium`` (``CHROME_PATH``), headless and
without a sandbox, as the browser tests do (``booktools.programs.chromium``). Each run is Lighthouse's default
navigation with its simulated throttling: ``mobile`` is its default preset (a
mid-range phone on a slow 4G network, the CPU slowed four times), ``desktop`` its
``--preset=desktop``. The simulation scales what it observed on this machine, so
a busy machine scores lower: :attr:`Result.benchmark` is Lighthouse's own
measure of the host's speed at the time (higher is faster; it warns under 1000).
"""

from __future__ import annotations

import json
import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

from booktools.checks.audit.options import PRESETS
from booktools.programs import CHROMIUM_VARIABLE, chromium, npm_prefix

# Where `make audit` installs the pinned Lighthouse (npm ci --prefix LIGHTHOUSE_PREFIX).
LIGHTHOUSE_PREFIX = npm_prefix("lighthouse")
CLI = Path("node_modules") / "lighthouse" / "cli" / "index.js"
CHROME_FLAGS = ("--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-dev-shm-usage")
CATEGORIES = ("performance", "accessibility", "best-practices", "seo")
# The key metrics of the table: Lighthouse's audit id -> (column, unit).
METRICS = {
    "first-contentful-paint": ("FCP", "s"),
    "largest-contentful-paint": ("LCP", "s"),
    "total-blocking-time": ("TBT", "ms"),
    "cumulative-layout-shift": ("CLS", ""),
    "speed-index": ("SI", "s"),
    "total-byte-weight": ("KiB", "KiB"),
}
RUN_TIMEOUT_S = 240


class LighthouseError(Exception):
    """Lighthouse is missing, or a run failed."""


@dataclass(frozen=True)
class Result:
    """What one run found: a score per category (0-100, None when Lighthouse gave none), metrics, failures."""

    url: str
    preset: str
    scores: dict[str, int | None]
    metrics: dict[str, float]
    failed: dict[str, list[str]]  # category -> the titles of its audits that did not pass
    benchmark: float
    error: str = ""


def cli(prefix: Path = LIGHTHOUSE_PREFIX) -> Path:
    """Return Lighthouse's command-line script.

    Raises:
        LighthouseError: if ``make audit`` has not installed it, or there is no Chromium.
    """
    script = prefix / CLI
    if not script.is_file():
        raise LighthouseError(f"no Lighthouse in {prefix}: `make audit` installs it (booktools/checks/audit/)")
    browser = chromium()
    if not browser.exists():
        raise LighthouseError(f"no browser at {browser} (apt-get install chromium, or set {CHROMIUM_VARIABLE})")
    return script


def command(url: str, preset: str, report: Path, blocked: tuple[str, ...] = ()) -> list[str]:
    """The ``node lighthouse`` command line that audits ``url`` with ``preset`` and writes its JSON to ``report``."""
    line = [
        "node",
        str(cli()),
        url,
        "--output=json",
        f"--output-path={report}",
        f"--only-categories={','.join(CATEGORIES)}",
        f"--chrome-flags={' '.join(CHROME_FLAGS)}",
        "--quiet",
    ]
    if preset == "desktop":
        line.append("--preset=desktop")
    line += [f"--blocked-url-patterns={pattern}" for pattern in blocked]
    return line


def _failed_audits(report: dict[str, object], category: dict[str, object]) -> list[str]:
    audits = report["audits"]
    assert isinstance(audits, dict)
    failed = []
    for ref in category.get("auditRefs", []):  # type: ignore[attr-defined]
        audit = audits.get(ref["id"], {})
        if ref.get("weight", 0) > 0 and audit.get("score") is not None and audit["score"] < 1:
            failed.append(f"{audit['title']} ({round(audit['score'] * 100)})")
    return failed


def read_report(path: Path, url: str, preset: str) -> Result:
    """Read a Lighthouse JSON report into a :class:`Result`."""
    report = json.loads(path.read_text(encoding="utf-8"))
    scores: dict[str, int | None] = {}
    failed: dict[str, list[str]] = {}
    for name in CATEGORIES:
        category = report["categories"].get(name, {})
        score = category.get("score")
        scores[name] = None if score is None else round(score * 100)
        failed[name] = _failed_audits(report, category)
    metrics = {
        audit: float(report["audits"][audit]["numericValue"])
        for audit in METRICS
        if report["audits"].get(audit, {}).get("numericValue") is not None
    }
    error = (report.get("runtimeError") or {}).get("message", "")
    benchmark = float(report.get("environment", {}).get("benchmarkIndex", 0))
    return Result(url, preset, scores, metrics, failed, benchmark, error)


def audit(url: str, preset: str, report: Path, blocked: tuple[str, ...] = ()) -> Result:
    """Run Lighthouse on ``url`` with ``preset`` (``mobile`` or ``desktop``); keep its JSON report at ``report``.

    Raises:
        LighthouseError: if Lighthouse exits with an error or writes no report.
    """
    if preset not in PRESETS:
        raise ValueError(f"preset is one of {PRESETS}, not {preset!r}")
    report.parent.mkdir(parents=True, exist_ok=True)
    report.unlink(missing_ok=True)
    environment = {**os.environ, "CHROME_PATH": str(chromium())}
    done = subprocess.run(
        command(url, preset, report, blocked),
        env=environment,
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT_S,
        check=False,
    )
    if done.returncode != 0 or not report.is_file():
        raise LighthouseError(f"lighthouse {url} ({preset}) exited with {done.returncode}:\n{done.stderr[-2000:]}")
    return read_report(report, url, preset)
