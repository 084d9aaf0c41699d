"""With CI=true the browser tests fail, never skip, when there is no browser."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from booktools.project import Project

PROJECT = Project.here()


def run_landing_test(**env: str) -> subprocess.CompletedProcess:
    environment = {key: value for key, value in os.environ.items() if key != "CI"}
    environment.update(env, BOOK_CHROMIUM=str(PROJECT.root / "no-such-chromium"))
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "-rs",
            "tests/book/test_browser.py::test_the_landing_page_links_every_edition",
        ],
        cwd=PROJECT.root,
        env=environment,
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )


@pytest.mark.parametrize("ci", ["true", ""])
def test_a_missing_browser_fails_in_ci_and_skips_elsewhere(ci: str):
    result = run_landing_test(CI=ci)
    output = result.stdout + result.stderr
    if ci:
        assert result.returncode == 1, output
        # a fixture that fails makes its test an error: the run fails, nothing is skipped
        assert re.search(r"\b1 (failed|error)\b", output) and "skipped" not in output, output
        assert "CI=true" in output, output
    else:
        assert result.returncode == 0, output
        assert "1 skipped" in output, output
