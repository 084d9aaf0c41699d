"""Where the book's notebooks live and in which order they are read.

``_toc.yml`` names the English notebooks; every other edition mirrors the same
files under ``chapters/<lang>/``.
"""

from __future__ import annotations

from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
SOURCE_LANGUAGE = "en"


def toc_entries(root: Path = ROOT) -> list[str]:
    """Return the ``file`` entries of ``_toc.yml`` in reading order (no suffix)."""
    toc = yaml.safe_load((root / "_toc.yml").read_text(encoding="utf-8"))
    entries = [toc["root"]]

    def walk(items: list[dict]) -> None:
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
    """Return the language codes of the editions present, English first."""
    found = sorted(p.name for p in (root / "chapters").iterdir() if p.is_dir() and len(p.name) == 2)
    return sorted(found, key=lambda code: (code != SOURCE_LANGUAGE, code))
