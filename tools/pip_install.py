"""``pip install`` into the virtual environment of the Python that runs this script, done by uv when there is one.

The Makefile makes ``.venv`` and ``.venv-d2lbook`` with it::

    ENV/bin/python tools/pip_install.py [pip install arguments]

uv installs the same distributions as pip, several times faster (it unpacks wheels in
parallel), provided that it reads the same package sources. It does not read pip's
configuration, so this script hands it pip's own: ``pip config list`` (the configuration
files and the ``PIP_*`` variables, as pip merges them) gives the index URLs, find-links
locations and constraint files, which go on uv's command line. With several indexes,
pip takes the best matching version found on any of them; uv's default takes a package
from the first index that has it (``absl-py==2.5.1`` is then not found, and ``torch``
could come from another file than pip's), so uv gets ``--index-strategy
unsafe-best-match``, pip's rule. The environment uv makes from ``requirements.txt`` was
compared with pip's: the same ``pip list --format=freeze`` (torch ``2.13.0+cpu``), the
same files.

pip installs instead when uv is not found (``$UV``, then ``uv`` beside this Python, then
on ``PATH``), when ``BOOK_INSTALLER=pip``, or when pip's configuration holds an option
that this script cannot hand to uv; the reason is printed.
"""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
from pathlib import Path

# pip's configuration options that choose which files get installed, and uv's flags for them.
LISTS = {"extra-index-url": "--extra-index-url", "find-links": "--find-links", "constraint": "--constraint"}
SINGLE = {"index-url": "--index-url"}
SWITCHES = {"no-index": ["--no-index"], "pre": ["--prerelease", "allow"]}
# Options that change how pip talks or prints, not what it installs; uv has its own
# defaults for them (the certificate bundle and the timeout are handed over as variables).
NO_EFFECT = {
    "break-system-packages",
    "cache-dir",
    "config-file",  # PIP_CONFIG_FILE: where pip config list read the rest from
    "disable-pip-version-check",
    "no-cache-dir",
    "no-color",
    "no-input",
    "no-python-version-warning",
    "no-warn-script-location",
    "progress-bar",
    "quiet",
    "require-virtualenv",
    "retries",
    "root-user-action",
    "verbose",
}
ENVIRONMENT = {"cert": "SSL_CERT_FILE", "default-timeout": "UV_HTTP_TIMEOUT", "timeout": "UV_HTTP_TIMEOUT"}
TRUE = {"1", "true", "yes", "on"}


def pip_options(python: str) -> dict[str, str]:
    """Return pip's configuration as ``pip install`` sees it: option name -> value.

    ``pip config list`` prints ``section.name='value'`` lines; a ``PIP_*`` variable
    (section ``:env:``) wins over the ``install`` section, which wins over ``global``.
    """
    listed = subprocess.run(
        [python, "-m", "pip", "config", "list"], capture_output=True, text=True, check=True
    ).stdout.splitlines()
    rank = {"global": 0, "install": 1, ":env:": 2}
    found: dict[str, tuple[int, str]] = {}
    for line in listed:
        key, _, value = line.partition("=")
        section, _, name = key.rpartition(".")
        if section not in rank or not value:
            continue
        text = ast.literal_eval(value)
        if name not in found or rank[section] >= found[name][0]:
            found[name] = (rank[section], text)
    return {name: text for name, (_, text) in found.items()}


def uv_arguments(options: dict[str, str]) -> tuple[list[str], dict[str, str]]:
    """Return uv's flags and variables for pip's ``options``.

    Raises:
        ValueError: naming the options that uv cannot be given.
    """
    flags: list[str] = []
    variables: dict[str, str] = {}
    unknown = []
    for name, value in sorted(options.items()):
        if name in LISTS:
            for item in value.split():
                flags += [LISTS[name], item]
        elif name in SINGLE:
            flags += [SINGLE[name], value]
        elif name in SWITCHES:
            if value.lower() in TRUE:
                flags += SWITCHES[name]
        elif name in ENVIRONMENT:
            variables.setdefault(ENVIRONMENT[name], value)
        elif name not in NO_EFFECT:
            unknown.append(name)
    if unknown:
        raise ValueError(f"pip's configuration sets {', '.join(unknown)}, which this script cannot hand to uv")
    return flags, variables


def find_uv() -> str | None:
    """Return uv's path: ``$UV``, else ``uv`` beside this Python, else on ``PATH``; None if there is none."""
    named = os.environ.get("UV")
    if named:
        return named if Path(named).is_file() else None
    beside = Path(sys.executable).parent / "uv"
    return str(beside) if beside.is_file() else shutil.which("uv")


def main(arguments: list[str]) -> int:
    """Install ``arguments`` (``pip install``'s) into this Python's environment; return the exit status."""
    python = sys.executable
    pip = [python, "-m", "pip", "install", *arguments]
    uv = find_uv()
    if os.environ.get("BOOK_INSTALLER", "") == "pip":
        reason = "BOOK_INSTALLER=pip"
    elif uv is None:
        reason = "no uv found"
    else:
        try:
            flags, variables = uv_arguments(pip_options(python))
        except ValueError as error:
            reason = str(error)
        except (subprocess.CalledProcessError, SyntaxError) as error:
            reason = f"pip config list: {error}"
        else:
            command = [uv, "pip", "install", "--no-config", "--python", python]
            command += ["--index-strategy", "unsafe-best-match", *flags, *arguments]
            environment = {**variables, **os.environ}
            return subprocess.run(command, env=environment, check=False).returncode
    print(f"tools/pip_install.py: pip installs ({reason})", flush=True)
    return subprocess.run(pip, check=False).returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
