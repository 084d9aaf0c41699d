"""The GitHub workflows as written: make audit's bar, Node where make runs npm, and a published site held to the bar.

``ci.yml``'s audit is a job of its own that fails when a Lighthouse score is under the bar
(``booktools.configuration.bars.LIGHTHOUSE_BAR``, which plain ``make audit`` runs at); every job that runs
``make setup`` gets Node from ``actions/setup-node`` at the version ``.nvmrc`` names, which the npm
locks' ``engines`` allow; ``.ci/run`` and every job that builds the site install the system packages from one
script, ``.ci/system-packages``; and
``pages.yml`` prints the PDFs (Chromium and fonts), publishes only a commit of main that CI's run (with
``make test``) passed, and deploys only a site that ``make audit`` passed.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
import yaml

from booktools.checks.audit import options as audit_options
from booktools.checks.audit import site_audit as audit
from booktools.checks.audit.lighthouse import CATEGORIES, Result
from booktools.configuration.bars import LIGHTHOUSE_BAR as BAR
from booktools.project import Project

PROJECT = Project.here()
WORKFLOWS = PROJECT.root / ".github" / "workflows"
WORKFLOW = WORKFLOWS / "ci.yml"
PAGES = WORKFLOWS / "pages.yml"
NVMRC = PROJECT.root / ".nvmrc"
CI_RUN = PROJECT.root / ".ci" / "run"
# make targets that run make setup, and so npm ci (the Makefile: setup is their prerequisite).
NPM_TARGETS = re.compile(r"\bmake (?:setup|test-setup|test|pytest|book|audit|pdf|slides)(?![\w-])")
# make targets that build the site, print the PDFs or run the browser tests, and so need Chromium and the fonts.
SITE_TARGETS = re.compile(r"\bmake (?:test|book|audit|pdf)(?![\w-])")
SYSTEM_PACKAGES = PROJECT.root / ".ci" / "system-packages"
PACKAGE_LIST = re.compile(r"^PACKAGES=\(([^)]*)\)", re.MULTILINE)
MAKEFILE = PROJECT.root / "Makefile"


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
    assert installs_the_system_packages(job), "the audit job needs Chromium: run .ci/system-packages"
    assert "chromium" in system_packages()
    assert any(action.startswith("actions/setup-node@") for action in uses(job)) or any(
        "nodejs" in line and "npm" in line for line in runs(job)
    ), "make audit installs Lighthouse with npm ci and runs it in Node"


def test_plain_make_audit_runs_at_the_bar():
    """The workflows run ``make audit`` with no ``--fail-under`` (the tests above and below) and set no
    ``AUDIT_ARGS``, not even in an ``env``; the Makefile adds none; the audit's ``--fail-under`` defaults to the bar."""
    for path in (WORKFLOW, PAGES):
        assert "AUDIT_ARGS" not in path.read_text(encoding="utf-8"), f"{path.name}: make audit's bar is the bar"
    makefile = MAKEFILE.read_text(encoding="utf-8")
    recipe = re.search(r"^audit:.*\n((?:\t.*\n)+)", makefile, re.MULTILINE)
    assert recipe is not None, "the Makefile has no audit rule"
    assert "-m booktools audit" in recipe.group(1) and "--fail-under" not in recipe.group(1), recipe.group(1)
    assert not re.search(r"^\s*(?:export\s+)?AUDIT_ARGS\s*[:?+]?=", makefile, re.MULTILINE), "AUDIT_ARGS is set"
    assert audit_options.defaults()["fail_under"] == BAR


def result(scores: dict[str, int | None]) -> Result:
    return Result("http://127.0.0.1/en/index.html", "mobile", scores, {}, {name: [] for name in CATEGORIES}, 1500.0)


def test_a_score_under_the_bar_is_a_shortfall():
    passing = result(dict.fromkeys(CATEGORIES, BAR))
    assert audit.shortfalls([("en/index.html", passing)], BAR) == []
    low = result({**dict.fromkeys(CATEGORIES, 100), "performance": BAR - 1})
    assert audit.shortfalls([("en/index.html", low)], BAR) == [f"en/index.html (mobile) performance {BAR - 1}: -"]
    missing = result({**dict.fromkeys(CATEGORIES, 100), "seo": None})
    assert len(audit.shortfalls([("en/index.html", missing)], BAR)) == 1


def workflow(path) -> dict[str, Any]:
    return yaml.safe_load(path.read_text(encoding="utf-8"))["jobs"]


def system_packages() -> set[str]:
    """The Debian packages ``.ci/system-packages`` installs (its ``PACKAGES=(...)`` line)."""
    found = PACKAGE_LIST.search(SYSTEM_PACKAGES.read_text(encoding="utf-8"))
    assert found, f"{SYSTEM_PACKAGES.name} should list its packages as PACKAGES=(...)"
    return set(found.group(1).split())


def installs_the_system_packages(job: dict[str, Any]) -> bool:
    """Whether a job runs ``.ci/system-packages`` (and so installs no list of its own)."""
    return any(line.strip() == "bash .ci/system-packages" for line in runs(job))


def node_lower_bound() -> tuple[int, ...]:
    """The highest Node version that any package of the npm locks asks for as its lowest (``engines``)."""
    bounds = [(0,)]
    for lock in PROJECT.root.glob("**/package-lock.json"):
        if "node_modules" in lock.parts or any(part.startswith(".venv") for part in lock.parts):
            continue
        for package in json.loads(lock.read_text(encoding="utf-8")).get("packages", {}).values():
            engines = package.get("engines")
            wanted = engines.get("node") if isinstance(engines, dict) else None
            if wanted:
                lows = [
                    tuple(int(n) for n in re.findall(r"\d+", alternative)[:3]) or (0,)
                    for alternative in wanted.split("||")
                ]
                bounds.append(min(lows))
    return max(bounds)


@pytest.mark.parametrize("path", [WORKFLOW, PAGES], ids=lambda path: path.name)
def test_every_job_that_runs_npm_gets_node_from_nvmrc(path):
    for name, job in workflow(path).items():
        if any(NPM_TARGETS.search(line) for line in runs(job)):
            nodes = [step for step in job["steps"] if str(step.get("uses", "")).startswith("actions/setup-node@")]
            assert nodes, f"{path.name}: job {name} runs make setup (npm ci) with no Node: add actions/setup-node"
            assert all(step.get("with", {}).get("node-version-file") == ".nvmrc" for step in nodes), (
                f"{path.name}: job {name}: setup-node should read node-version-file: .nvmrc"
            )


def test_nvmrc_satisfies_the_npm_locks():
    major = int(NVMRC.read_text(encoding="utf-8").strip())
    lowest = node_lower_bound()
    assert major >= lowest[0], f".nvmrc names Node {major}, but a package of the npm locks asks for {lowest}"


def test_ci_run_and_the_jobs_that_build_the_site_install_one_list():
    assert "bash .ci/system-packages" in CI_RUN.read_text(encoding="utf-8")
    assert {"chromium", "fonts-noto-cjk", "fonts-dejavu-core", "poppler-utils", "make"} <= system_packages()
    for path in (WORKFLOW, PAGES):
        for name, job in workflow(path).items():
            text = "\n".join(runs(job))
            if SITE_TARGETS.search(text):
                assert installs_the_system_packages(job), f"{path.name}: job {name} should run .ci/system-packages"
            if installs_the_system_packages(job) or "make test-versions" in text:
                continue
            assert "apt-get install" not in text, f"{path.name}: job {name} keeps a package list of its own"


def test_pages_prints_the_pdfs_and_deploys_only_a_site_at_the_bar():
    jobs = workflow(PAGES)
    build = jobs["build"]
    assert installs_the_system_packages(build), "the PDFs need Chromium and the fonts: run .ci/system-packages"
    assert {"chromium", "fonts-noto-cjk", "fonts-dejavu-core"} <= system_packages()
    steps = build["steps"]
    where = {
        name: next(i for i, step in enumerate(steps) if name in str(step.get("run", "")) + str(step.get("uses", "")))
        for name in ("make book", "make audit", "actions/upload-pages-artifact@")
    }
    assert where["make book"] < where["make audit"] < where["actions/upload-pages-artifact@"], where
    audit_step = steps[where["make audit"]]
    assert not audit_step.get("continue-on-error") and not build.get("continue-on-error"), "the bar must hold"
    assert "AUDIT_ARGS" not in audit_step["run"] and "--fail-under" not in audit_step["run"], "the bar is make audit's"
    assert jobs["deploy"]["needs"] == "build"


def triggers(path) -> dict[str, Any]:
    """A workflow's ``on:`` (which YAML 1.1 reads as the key ``True``)."""
    spec = yaml.safe_load(path.read_text(encoding="utf-8"))
    return dict(spec.get("on", spec.get(True)))


def test_pages_publishes_only_a_commit_of_main_whose_tests_passed():
    ci_name = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))["name"]
    assert any(re.search(r"\bmake test(?![\w-])", line) for line in runs(workflow(WORKFLOW)["test"]))
    on = triggers(PAGES)
    # no push or dispatch of its own, which would publish what no test run passed
    assert list(on) == ["workflow_run"], f"pages.yml starts only after CI: {sorted(on)}"
    assert on["workflow_run"] == {"workflows": [ci_name], "types": ["completed"], "branches": ["main"]}
    jobs = workflow(PAGES)
    build = jobs["build"]
    condition = build["if"].replace(" ", "")
    assert "github.event.workflow_run.conclusion=='success'" in condition, "only after CI passed"
    assert "github.event.workflow_run.event!='pull_request'" in condition, "not a pull request's run"
    assert "||" not in condition, build["if"]
    checkout = next(step for step in build["steps"] if str(step.get("uses", "")).startswith("actions/checkout@"))
    assert checkout["with"]["ref"] == "${{ github.event.workflow_run.head_sha }}", "the commit CI tested"
    assert jobs["deploy"]["needs"] == "build" and "if" not in jobs["deploy"], "deploy runs only after the build"
