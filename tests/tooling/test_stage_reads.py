"""Each stage cheap enough to run here opens, for reading, only files of the project that it declares.

``booktools.pipeline.stages`` declares by hand what each stage reads; a stage is run again only when
what it declares changes, so a file it reads and does not declare leaves its outputs stale. These
tests run the ``library``, ``notebooks`` and ``root`` stages on a copy of the book, record every file
they open for reading (an audit hook on Python's ``open`` event, which ``open``, ``Path.read_*``
and ``os.open`` all raise) and fail on a file of the project that is none of: the stage's
``reads`` (its code among them), what the stages it needs made, or what it writes itself.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from booktools.pipeline import stages
from booktools.pipeline.graph import ONCE, Outcome, Stage
from booktools.project import Project
from booktools.website import jupyter_book

PROJECT = Project.here()
_RECORDING: list[list[Path]] = []  # the open recording, if any (an audit hook cannot be removed)
_WRITING = os.O_WRONLY | os.O_RDWR


def _on_audit(event: str, args: tuple[object, ...]) -> None:
    if event != "open" or not _RECORDING:
        return
    path, mode, flags = args
    if not isinstance(path, (str, bytes, os.PathLike)):
        return  # a file descriptor, opened already
    reading = ("r" in mode and "+" not in mode) if isinstance(mode, str) else not (int(str(flags)) & _WRITING)
    if reading:
        _RECORDING[-1].append(Path(os.path.abspath(os.fsdecode(path))))


sys.addaudithook(_on_audit)


@contextmanager
def opened_for_reading() -> Iterator[list[Path]]:
    """Record, while inside, the absolute paths of the files this process opens for reading."""
    found: list[Path] = []
    _RECORDING.append(found)
    try:
        yield found
    finally:
        _RECORDING.remove(found)


def in_copy(path: Path, copy: Project) -> Path | None:
    """``path`` as the copy of the book sees it: the code runs from the checkout, so its own files and
    ``d2l_lib``'s count as the copy's; None for a file of neither (the Python environment, the system)."""
    environments = (Path(sys.prefix), PROJECT.d2lbook_env, copy.root / ".venv")
    if any(path.is_relative_to(place) for place in environments):
        return None
    for root in (copy.root, PROJECT.root):
        if path.is_relative_to(root):
            return copy.root / path.relative_to(root)
    return None


def declared(stage: Stage, project: Project) -> list[Path]:
    """What ``stage`` declares it reads for the whole book: its reads, its needs' outputs, its own writes."""
    by_name = {each.name: each for each in stages.STAGES}
    editions = stage.editions(project)
    paths = [path for edition in editions for path in stage.reads(project, edition)]
    paths += [path for edition in editions for path in stage.writes(project, edition)]
    for name in stage.needs:
        need = by_name[name]
        paths += [path for edition in need.editions(project) for path in (need.made or need.writes)(project, edition)]
    return paths


def undeclared(stage: Stage, project: Project) -> list[str]:
    """Run ``stage`` on ``project`` and return the files of the project it read without declaring them."""
    with opened_for_reading() as opened:
        outcomes = stage.run(project, [ONCE])
    assert outcomes == {ONCE: Outcome.DONE}
    covered = declared(stage, project)
    missing = set()
    for path in opened:
        copy = in_copy(path, project)
        if copy is not None and not any(copy == place or copy.is_relative_to(place) for place in covered):
            missing.add(project.relative(copy))
    return sorted(missing)


def _stage(name: str) -> Stage:
    return next(stage for stage in stages.STAGES if stage.name == name)


@pytest.mark.parametrize("name", ["library", "notebooks"])
def test_a_derivation_reads_only_what_its_stage_declares(book_copy: Project, name: str) -> None:
    assert undeclared(_stage(name), book_copy) == []


def test_the_root_files_read_only_what_their_stage_declares(book_copy: Project) -> None:
    for code in book_copy.editions():  # what the site stage leaves for root: each edition's sitemap
        sitemap = jupyter_book.edition_sitemap(book_copy, code)
        sitemap.parent.mkdir(parents=True, exist_ok=True)
        sitemap.write_text('<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"/>\n', encoding="utf-8")
    book_copy.site_dir.mkdir(parents=True, exist_ok=True)
    assert undeclared(_stage("root"), book_copy) == []


def test_a_file_a_stage_reads_and_does_not_declare_is_found(book_copy: Project) -> None:
    """The recording sees what a stage reads: a stage that reads a file outside its reads is caught."""
    stray = book_copy.root / "stray.txt"
    stray.write_text("read by no declared stage\n", encoding="utf-8")
    library = _stage("library")

    def reads_a_stray_file(project: Project, editions: list[str]) -> dict[str, Outcome]:
        stray.read_text(encoding="utf-8")
        with open(stray, "rb") as file:
            file.read()
        return library.run(project, editions)

    stage = Stage(library.name, library.does, library.reads, library.writes, reads_a_stray_file, per_edition=False)
    assert undeclared(stage, book_copy) == ["stray.txt"]
