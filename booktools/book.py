"""Where the book's pages live and in which order they are read.

``_toc.yml`` names the English pages; every other edition mirrors the same files
under ``chapters/<lang>/``. Which editions there are is ``_config.yml``'s
``editions`` (``booktools.config``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from booktools import config
from booktools.config import SOURCE_LANGUAGE

__all__ = ["ROOT", "SOURCE_LANGUAGE", "editions", "notebooks", "pages", "relative", "toc_entries"]

ROOT = Path(__file__).resolve().parent.parent


def relative(path: Path, root: Path = ROOT) -> str:
    """Return how messages and test ids name a file of the book: its path from ``root``, with ``/``."""
    return path.relative_to(root).as_posix()


def toc_entries(root: Path = ROOT) -> list[str]:
    """Return the ``file`` entries of ``_toc.yml`` in reading order (no suffix)."""
    toc = yaml.safe_load((root / "_toc.yml").read_text(encoding="utf-8"))
    entries = [toc["root"]]

    def walk(items: list[dict[str, Any]]) -> None:
        for item in items:
            if "file" in item:
                entries.append(item["file"])
            for key in ("chapters", "sections"):
                walk(item.get(key, []))
            for part in item.get("parts", []):
                walk(part.get("chapters", []))

    walk(toc.get("chapters", []))
    for part in toc.get("parts", []):
        walk(part.get("chapters", []))
    return entries


def pages(language: str = SOURCE_LANGUAGE, root: Path = ROOT) -> list[Path]:
    """Return the pages (``.ipynb`` or ``.md``) of one edition, in book order.

    Raises:
        ValueError: if a ``_toc.yml`` entry is not under ``chapters/en/``.
        FileNotFoundError: if the edition lacks a page that ``_toc.yml`` names.
    """
    paths = []
    for entry in toc_entries(root):
        parts = Path(entry).parts
        if parts[:2] != ("chapters", SOURCE_LANGUAGE):
            raise ValueError(f"_toc.yml entry {entry!r} is not under chapters/{SOURCE_LANGUAGE}/")
        stem = root.joinpath("chapters", language, *parts[2:])
        found = [stem.with_suffix(suffix) for suffix in (".ipynb", ".md") if stem.with_suffix(suffix).exists()]
        if not found:
            raise FileNotFoundError(f"_toc.yml names {entry}, but {stem.relative_to(root)}.ipynb/.md is missing")
        paths.append(found[0])
    return paths


def notebooks(language: str = SOURCE_LANGUAGE, root: Path = ROOT) -> list[Path]:
    """Return the notebooks of one edition, in book order."""
    return [path for path in pages(language, root) if path.suffix == ".ipynb"]


def editions(root: Path = ROOT) -> list[str]:
    """Return the language codes of the editions present, English first (``booktools.config.editions``).

    Raises:
        booktools.schema.ConfigError: if ``_config.yml`` is invalid, or a folder under
            ``chapters/`` is not listed under its ``editions``.
    """
    return config.editions(root)
