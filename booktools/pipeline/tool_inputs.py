"""The tools a stage runs with, as facts for its digest: Python environments, Node, Chromium.

Every stage's digest holds every distribution of the running Python environment, by name and version
(:func:`running_environment`), so an upgrade of any package there, even one no stage imports (ruff,
mypy), reruns the whole build: an edition's site builds in about 35 s, and knowing which stage uses
which package is not worth the guesswork. Some stages add the facts of tools outside it: Node's version
(KaTeX in the sites, Lighthouse in the audit), Chromium's path and size (the PDFs, the audit) and
every distribution of ``.venv-d2lbook`` (the slides).
"""

from __future__ import annotations

import functools
import hashlib
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

INSTALLED = ("*.dist-info", "*.egg-info")  # the metadata folders of installed distributions, named name-version


def _installed(folders: list[Path]) -> str:
    """The distributions installed in ``folders`` (site-packages), as sorted ``name-version`` lines."""
    found = {
        path.name.rsplit(".", 1)[0] for folder in folders for pattern in INSTALLED for path in folder.glob(pattern)
    }
    return "\n".join(sorted(found))


@functools.cache
def running_environment() -> str:
    """Every distribution installed in the running environment's site-packages.

    Only there: what else is on ``sys.path`` depends on the caller (a checkout's own ``*.egg-info``, which
    ``pip install .`` leaves beside the sources, a test's folders), and would change the digest with it.
    """
    paths = sysconfig.get_paths()
    return _installed(sorted({Path(paths["purelib"]), Path(paths["platlib"])}))


@functools.cache
def python_environment(prefix: Path) -> str:
    """Every distribution installed in another Python environment (``.venv-d2lbook``)."""
    return _installed(sorted(prefix.glob("lib/python*/site-packages")))


def node_version() -> str:
    """The version of the ``node`` on ``PATH`` ("" when there is none), asked once per program."""
    node = shutil.which("node")
    return "" if node is None else _version_of(str(Path(node).resolve()))


@functools.cache
def _version_of(program: str) -> str:
    return subprocess.run([program, "--version"], capture_output=True, text=True, check=False).stdout.strip()


def file_identity(path: Path) -> str:
    """A program's identity without running it: its resolved path and size ("" when it is missing)."""
    resolved = path.resolve()
    return f"{resolved} {resolved.stat().st_size}" if resolved.is_file() else ""


def environment_digest(*facts: str) -> str:
    """One digest of Python's version and the tools' facts (``running_environment()``, ``node_version()``, ...)."""
    return hashlib.sha256("\0".join([sys.version, *facts]).encode()).hexdigest()
