"""The Jupyter Book configuration of each edition, derived from ``_config.yml`` and ``_toc.yml``.

Only what differs between editions is derived (``booktools.build`` writes the result to
``_build/editions/<code>/`` and builds from it):

- the language (Sphinx ``language``, hence ``<html lang>``, the theme's translations
  and the search index) and the book's title;
- the table of contents, whose ``chapters/en/`` entries point at the edition's own
  pages (the edition's folder is the source folder of its build);
- ``repository.path_to_book``, so that each "open in Colab" button opens
  ``notebooks/<code>/<framework>/<page>.ipynb`` of the repository;
- the values ``booktools.theme`` needs for the language switcher, and paths made
  absolute (the bibliography, local extensions).
"""

from __future__ import annotations

import copy
import posixpath
from pathlib import Path
from typing import Any

import yaml

from booktools import config as book_config
from booktools.book import ROOT, SOURCE_LANGUAGE, editions, pages
from booktools.config import Edition
from booktools.derive import OUTPUT_DIR as NOTEBOOKS_DIR
from booktools.frameworks import DEFAULT as DEFAULT_FRAMEWORK

SOURCE_PREFIX = f"chapters/{SOURCE_LANGUAGE}/"
TOC_PATH_KEYS = ("root", "file", "glob")


class BuildError(Exception):
    """The configuration or an edition's files do not allow a build."""


def load_yaml(path: Path) -> dict[str, Any]:
    """Read a YAML mapping."""
    return yaml.safe_load(path.read_text(encoding="utf-8")) or {}


def configured_editions(config: dict[str, Any]) -> list[Edition]:
    """Return the editions ``_config.yml`` (read as ``config``) lists, English first.

    Raises:
        BuildError: if the settings booktools reads are invalid (``booktools.config``).
    """
    try:
        return book_config.configured_editions(book_config.parse(config))
    except book_config.ConfigError as error:
        raise BuildError(str(error)) from error


def editions_to_build(config: dict[str, Any], root: Path = ROOT) -> list[Edition]:
    """Return the configured editions whose folder exists, checking each has every page.

    Raises:
        BuildError: if a folder under ``chapters/`` is not a configured edition,
            or an edition lacks a page that ``_toc.yml`` names.
    """
    configured = {edition.code: edition for edition in configured_editions(config)}
    try:
        present = editions(root)
    except book_config.ConfigError as error:
        raise BuildError(str(error)) from error
    for code in present:
        try:
            pages(code, root)
        except (FileNotFoundError, ValueError) as error:
            raise BuildError(f"edition {code!r}: {error}") from error
    return [configured[code] for code in configured if code in present]


def _retarget(entry: str) -> str:
    if not entry.startswith(SOURCE_PREFIX):
        raise BuildError(f"_toc.yml entry {entry!r} is not under {SOURCE_PREFIX}")
    return entry[len(SOURCE_PREFIX) :]


def edition_toc(toc: Any) -> Any:
    """Return ``toc`` with every page path made relative to the edition's folder.

    ``chapters/en/attention-scoring-functions`` becomes
    ``attention-scoring-functions``; the edition's folder is the source folder of
    its build, so the same table of contents serves every edition.
    """
    if isinstance(toc, list):
        return [edition_toc(item) for item in toc]
    if isinstance(toc, dict):
        return {
            key: _retarget(value) if key in TOC_PATH_KEYS and isinstance(value, str) else edition_toc(value)
            for key, value in toc.items()
        }
    return toc


def edition_config(config: dict[str, Any], edition: Edition, built: list[Edition], root: Path = ROOT) -> dict[str, Any]:
    """Return the Jupyter Book configuration of ``edition``, derived from ``_config.yml``.

    ``built`` lists every edition of this build, for the language switcher.
    """
    derived = copy.deepcopy(config)
    derived.pop("editions", None)
    derived["title"] = edition.title
    if "bibtex_bibfiles" in derived:
        derived["bibtex_bibfiles"] = [str((root / path).resolve()) for path in derived["bibtex_bibfiles"]]

    repository = derived.setdefault("repository", {})
    book_path = repository.get("path_to_book") or ""
    # The Colab button opens the derived notebook of the default framework; the page's
    # script (theme/static/framework-colab.js) swaps in the framework the reader chose.
    repository["path_to_book"] = posixpath.join(book_path, NOTEBOOKS_DIR, edition.code, DEFAULT_FRAMEWORK.name).strip(
        "/"
    )

    sphinx = derived.setdefault("sphinx", {})
    local = sphinx.get("local_extensions") or {}
    sphinx["local_extensions"] = {name: str((root / path).resolve()) for name, path in local.items()}
    sphinx_config = sphinx.get("config") or {}
    sphinx_config.update(edition.config)  # the edition's own interface strings, if any
    sphinx_config.update(
        language=edition.code,
        project=edition.title,
        book_edition=edition.code,
        book_editions=[{"code": other.code, "name": other.name, "title": other.title} for other in built],
    )
    sphinx["config"] = sphinx_config
    return derived
