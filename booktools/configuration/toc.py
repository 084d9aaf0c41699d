"""``_toc.yml`` read as plain YAML: the book's pages in reading order.

The file is Jupyter Book 1's ``jb-book`` table of contents: a ``root`` page, then either
``chapters`` or ``parts`` (each with its ``chapters``); a chapter names its page with ``file``
(a path without suffix) and may hold ``sections``, nested the same way; a ``url`` entry is a
link, not a page. Only Jupyter Book's own build (``booktools.website.editions``) reads the file
with Jupyter Book's TOC library; everything else reads it here, so that the book's reading
order does not depend on that library. A key or an entry of another shape (a ``glob``, a
``subtrees`` list) fails with a :class:`~booktools.configuration.schema.ConfigError` that names
the file and the entry.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from booktools.configuration.schema import ConfigError, read_yaml, validate

BOOK_FORMAT = "jb-book"


def _book_format(value: str) -> str:
    if value != BOOK_FORMAT:
        raise ValueError(f"expected {BOOK_FORMAT!r} (a book of chapters or parts), got {value!r}")
    return value


@dataclass(frozen=True)
class TocEntry:
    """A chapter or a section: a page (``file``) with its ``sections``, or a link (``url``)."""

    file: str | None = None
    url: str | None = None
    title: str | None = None
    sections: tuple[TocEntry, ...] = ()
    options: dict[str, Any] = field(default_factory=dict)  # the toctree options of its sections


@dataclass(frozen=True)
class TocPart:
    """A part of the book: its chapters, and the options of its toctree (its caption...)."""

    chapters: tuple[TocEntry, ...]
    caption: str | None = None
    hidden: Any = None
    maxdepth: Any = None
    numbered: Any = None
    reversed: Any = None
    titlesonly: Any = None
    style: Any = None
    restart_numbering: Any = None


@dataclass(frozen=True)
class Toc:
    """The keys of a ``jb-book`` table of contents."""

    format: str = field(metadata={"check": _book_format})
    root: str
    defaults: dict[str, Any] = field(default_factory=dict)
    options: dict[str, Any] = field(default_factory=dict)
    meta: dict[str, Any] = field(default_factory=dict)
    parts: tuple[TocPart, ...] = ()
    chapters: tuple[TocEntry, ...] = ()


def _pages(entries: tuple[TocEntry, ...], file: str, key: str) -> Iterator[str]:
    """The pages of ``entries`` (at ``key`` of ``file``) and of their sections, depth first."""
    for index, entry in enumerate(entries):
        where = f"{key}[{index}]"
        if (entry.file is None) == (entry.url is None):
            raise ConfigError(file, where, "expected either `file` (a page) or `url` (a link)")
        if entry.file is None:
            if entry.sections:
                raise ConfigError(file, where, "a `url` entry is a link and holds no `sections`")
            continue
        yield entry.file
        yield from _pages(entry.sections, file, f"{where}.sections")


def reading_order(data: object, file: str) -> list[str]:
    """The pages of a table of contents read from ``file``, in reading order: the root, then each chapter
    and its sections, depth first (``chapters/en/<page>``, no suffix).

    Raises:
        ConfigError: naming ``file`` and the entry, if the data is not a ``jb-book`` table of contents.
    """
    toc = validate(data, Toc, file)
    if toc.parts and toc.chapters:
        raise ConfigError(file, "", "expected `chapters` or `parts`, not both")
    pages = [toc.root, *_pages(toc.chapters, file, "chapters")]
    for index, part in enumerate(toc.parts):
        pages += _pages(part.chapters, file, f"parts[{index}].chapters")
    return pages


def read_reading_order(path: Path, file: str) -> list[str]:
    """The pages of the ``_toc.yml`` at ``path`` in reading order (:func:`reading_order`); ``file`` names it.

    Raises:
        ConfigError: if the file is missing, not YAML, or not a ``jb-book`` table of contents.
    """
    return reading_order(read_yaml(path, file), file)
