"""tools/pip_install.py: uv gets the package sources of pip's configuration, or pip installs."""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

import pytest

from booktools.project import Project

ROOT = Project.here().root

SPEC = importlib.util.spec_from_file_location("pip_install", ROOT / "tools" / "pip_install.py")
assert SPEC is not None and SPEC.loader is not None
pip_install = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(pip_install)


@pytest.fixture
def pip_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty pip configuration file that pip reads last (PIP_CONFIG_FILE); no other PIP_* variable is set."""
    for name in list(os.environ):
        if name.startswith("PIP_"):
            monkeypatch.delenv(name)
    config = tmp_path / "pip.conf"
    config.write_text("")
    monkeypatch.setenv("PIP_CONFIG_FILE", str(config))
    return config


def test_the_sources_come_from_pips_files_and_variables_as_pip_ranks_them(
    pip_config: Path, monkeypatch: pytest.MonkeyPatch
):
    pip_config.write_text(
        "[global]\nextra-index-url = file:///a/simple\n    file:///b/simple\nfind-links = /global\n"
        "constraint = /c.txt\ntimeout = 60\n[install]\nfind-links = /install\n"
    )
    monkeypatch.setenv("PIP_CONSTRAINT", "/env.txt")
    options = pip_install.pip_options(sys.executable)
    assert options["find-links"] == "/install"  # [install] over [global]
    assert options["constraint"] == "/env.txt"  # a variable over the files
    flags, variables = pip_install.uv_arguments(options)
    pairs = list(zip(flags[::2], flags[1::2]))
    assert ("--extra-index-url", "file:///a/simple") in pairs and ("--extra-index-url", "file:///b/simple") in pairs
    assert ("--find-links", "/install") in pairs and ("--constraint", "/env.txt") in pairs
    assert ("--find-links", "/global") not in pairs
    assert variables["UV_HTTP_TIMEOUT"] == "60"


def test_an_option_uv_cannot_take_makes_pip_install():
    with pytest.raises(ValueError, match="trusted-host"):
        pip_install.uv_arguments({"trusted-host": "example.org", "find-links": "/wheels"})


def test_without_uv_pip_installs(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]):
    commands: list[list[str]] = []

    class Done:
        returncode = 0

    monkeypatch.setenv("UV", "/no/such/uv")
    monkeypatch.setattr(pip_install.subprocess, "run", lambda command, **kwargs: commands.append(command) or Done())
    assert pip_install.main(["--quiet", "six"]) == 0
    assert commands == [[sys.executable, "-m", "pip", "install", "--quiet", "six"]]
    assert "pip installs (no uv found)" in capsys.readouterr().out


def test_uv_installs_into_this_python_with_pips_rule_for_several_indexes(monkeypatch: pytest.MonkeyPatch):
    commands: list[list[str]] = []

    class Done:
        returncode = 0

    monkeypatch.setenv("UV", sys.executable)  # any file stands for uv here
    monkeypatch.delenv("BOOK_INSTALLER", raising=False)
    monkeypatch.setattr(pip_install, "pip_options", lambda python: {"find-links": "/wheels"})
    monkeypatch.setattr(pip_install.subprocess, "run", lambda command, **kwargs: commands.append(command) or Done())
    assert pip_install.main(["-r", "requirements.txt"]) == 0
    [command] = commands
    assert command[:6] == [sys.executable, "pip", "install", "--no-config", "--python", sys.executable]
    assert command[6:] == ["--index-strategy", "unsafe-best-match", "--find-links", "/wheels", "-r", "requirements.txt"]
