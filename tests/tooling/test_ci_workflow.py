"""The GitHub workflow holds make audit's bar: a job of its own that fails when a Lighthouse score is low."""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from booktools.checks import audit
from booktools.checks.audit.lighthouse import CATEGORIES, Result
from booktools.project import Project

PROJECT = Project.here()
WORKFLOW = PROJECT.root / ".github" / "workflows" / "ci.yml"
BAR = 95  # every Lighthouse score of every page, mobile and desktop (issue 39)


@pytest.fixture(scope="module")
def jobs() -> dict[str, Any]:
    return yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))["jobs"]


def runs(job: dict[str, Any]) -> list[str]:
    return [str(step.get("run", "")) for step in job.get("steps", [])]


def uses(job: dict[str, Any]) -> list[str]:
    return [str(step.get("uses", "")) for step in job.get("steps", [])]


def audit_jobs(jobs: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {name: job for name, job in jobs.items() if any("make audit" in line for line in runs(job))}


def test_make_audit_is_a_job_of_its_own(jobs):
    found = audit_jobs(jobs)
    assert list(found) == ["audit"], f"make audit should run in one job, named audit: {sorted(found)}"
    job = found["audit"]
    assert not any("make test" in line for line in runs(job)), "the audit job runs make audit only"
    assert "needs" not in job, "the audit runs beside the tests, not after them"


def test_the_audit_job_fails_on_a_low_score(jobs):
    job = jobs["audit"]
    assert not job.get("continue-on-error"), "a score under the bar must fail the workflow"
    step = next(step for step in job["steps"] if "make audit" in str(step.get("run", "")))
    assert not step.get("continue-on-error"), "a score under the bar must fail the workflow"
    assert "--fail-under" not in step["run"] and "AUDIT_ARGS" not in step["run"], "the bar is make audit's own"


def test_the_audit_job_has_chromium_and_node(jobs):
    job = jobs["audit"]
    assert any("apt-get install" in line and "chromium" in line for line in runs(job))
    assert any(action.startswith("actions/setup-node@") for action in uses(job)) or any(
        "nodejs" in line and "npm" in line for line in runs(job)
    ), "make audit installs Lighthouse with npm ci and runs it in Node"


def test_the_bar_is_95():
    assert audit.DEFAULT_FAIL_UNDER == BAR


def result(scores: dict[str, int | None]) -> Result:
    return Result("http://127.0.0.1/en/index.html", "mobile", scores, {}, {name: [] for name in CATEGORIES}, 1500.0)


def test_a_score_under_the_bar_is_a_shortfall():
    passing = result(dict.fromkeys(CATEGORIES, BAR))
    assert audit.shortfalls([("en/index.html", passing)], BAR) == []
    low = result({**dict.fromkeys(CATEGORIES, 100), "performance": BAR - 1})
    assert audit.shortfalls([("en/index.html", low)], BAR) == [f"en/index.html (mobile) performance {BAR - 1}: -"]
    missing = result({**dict.fromkeys(CATEGORIES, 100), "seo": None})
    assert len(audit.shortfalls([("en/index.html", missing)], BAR)) == 1
