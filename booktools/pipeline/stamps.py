"""What a stage read, as one digest, and the stamp it leaves when it succeeds.

A stage's digest covers the content of every file it reads (each file's path from the
book's root and its SHA-256; a folder stands for every file under it, compiled Python
left out) and what the stages it needs made, so that a stage runs again when a stage
before it made something else (not merely ran). The stamp,
``_build/stamps/<stage>.<edition>``, holds two digests: of the inputs the stage last
succeeded on, and of what it made then. A stage with no stamp, another input digest or
a missing output is stale. A failed or skipped stage has no stamp.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Iterable
from pathlib import Path

from booktools.project import Project

STAMPS = "stamps"


def _files(path: Path) -> list[Path]:
    """The files ``path`` stands for: itself, or every file under it, ``__pycache__`` and ``*.pyc`` left out."""
    if path.is_dir():
        found = path.rglob("*")
        return sorted(
            file for file in found if file.is_file() and "__pycache__" not in file.parts and file.suffix != ".pyc"
        )
    return [path] if path.is_file() else []


@functools.lru_cache(maxsize=4096)
def _file_hash(file: Path, mtime_ns: int, size: int) -> bytes:
    """One file's SHA-256, read once per run while its modification time and size stay (many stages read it)."""
    return hashlib.sha256(file.read_bytes()).digest()


def files_digest(project: Project, paths: Iterable[Path], needs: Iterable[str] = (), environment: str = "") -> str:
    """The digest of the files ``paths`` stand for, by content, of what the tasks ``needs`` made, and of
    ``environment`` (the tools' versions, ``booktools.pipeline.tool_inputs``)."""
    digest = hashlib.sha256(environment.encode() + b"\0")
    for path in paths:
        for file in _files(path):
            digest.update(project.relative(file).encode() + b"\0")
            status = file.stat()
            digest.update(_file_hash(file, status.st_mtime_ns, status.st_size))
    for need in needs:
        digest.update(f"{need}={read_stamp(project, need, made=True)}\0".encode())
    return digest.hexdigest()


def stamp_file(project: Project, task: str) -> Path:
    """``_build/stamps/<task>``: the stamp of one stage for one edition (``site.en``) or the whole book."""
    return project.work_dir(STAMPS) / task


def read_stamp(project: Project, task: str, made: bool = False) -> str:
    """The digest of the inputs ``task`` last succeeded on, or if ``made`` of what it made ("" if none)."""
    path = stamp_file(project, task)
    lines = path.read_text(encoding="utf-8").split() if path.exists() else []
    return lines[int(made)] if len(lines) == 2 else ""


def write_stamp(project: Project, task: str, inputs: str, made: str) -> None:
    """Record that ``task`` succeeded on the inputs of digest ``inputs`` and made what ``made`` digests."""
    path = stamp_file(project, task)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"{inputs}\n{made}\n", encoding="utf-8")


def clear_stamp(project: Project, task: str) -> None:
    """Forget that ``task`` succeeded (it failed, was skipped, or its outputs are being replaced)."""
    stamp_file(project, task).unlink(missing_ok=True)
