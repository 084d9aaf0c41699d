"""The book's own settings in ``_config.yml``, validated on load: the editions and the repository.

``_config.yml`` is Jupyter Book's configuration. booktools reads a few keys of it
and checks them against the schema below (``booktools.schema``): ``editions``,
which is booktools' own (Jupyter Book never sees it), and ``title`` and
``repository``, which the Colab install cell and the editions' titles use. Every
other key is Jupyter Book's and is passed to it as it is, except a key that looks
like a misspelling of one of these.

The editions are one fact, read here only: the language codes listed under
``editions``, English first. :func:`editions` says which of them have a folder
``chapters/<code>/``; a folder that is not listed is an error.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from booktools.schema import ConfigError, read_yaml, validate

__all__ = [
    "CHAPTERS_DIR",
    "CONFIG_FILE",
    "SOURCE_LANGUAGE",
    "BookConfig",
    "ConfigError",
    "Edition",
    "EditionSettings",
    "ParseSettings",
    "Repository",
    "configured_editions",
    "edition_folders",
    "editions",
    "load_config",
    "parse",
    "present_editions",
]

CONFIG_FILE = "_config.yml"
SOURCE_LANGUAGE = "en"
CHAPTERS_DIR = "chapters"


@dataclass(frozen=True)
class EditionSettings:
    """One entry of ``editions``: how one language edition differs from English."""

    name: str  # the name its readers know the language by, in the switcher: "한국어"
    title: str | None = None  # the book's title in that language (default: the top-level title)
    config: dict[str, Any] = field(default_factory=dict)  # Sphinx settings of this edition only


@dataclass(frozen=True)
class Repository:
    """``repository``: where the book is published (Colab buttons, the notebooks' install cell)."""

    url: str
    branch: str = "main"
    path_to_book: str = ""


@dataclass(frozen=True)
class ParseSettings:
    """``parse``: how Jupyter Book reads MyST; the translation checker parses the same way."""

    PASS_THROUGH: ClassVar[str] = "Jupyter Book"

    # Jupyter Book's default where _config.yml sets none.
    myst_enable_extensions: tuple[str, ...] = ("colon_fence", "dollarmath", "linkify", "substitution", "tasklist")


@dataclass(frozen=True)
class BookConfig:
    """The keys of ``_config.yml`` that booktools reads."""

    PASS_THROUGH: ClassVar[str] = "Jupyter Book"

    editions: dict[str, EditionSettings]
    repository: Repository
    title: str = ""
    parse: ParseSettings = field(default_factory=ParseSettings)


@dataclass(frozen=True)
class Edition:
    """One language edition of the book, with its title resolved."""

    code: str
    name: str
    title: str
    config: dict[str, Any] = field(default_factory=dict, compare=False)


def parse(data: object, file: str = CONFIG_FILE) -> BookConfig:
    """Validate the data of ``_config.yml``.

    Raises:
        ConfigError: for a misspelt key, a value of the wrong type, or no English edition.
    """
    config = validate(data, BookConfig, file)
    if SOURCE_LANGUAGE not in config.editions:
        raise ConfigError(file, "editions", f"expected the source language {SOURCE_LANGUAGE!r} among the editions")
    return config


def load_config(root: Path) -> BookConfig:
    """Read and validate ``<root>/_config.yml`` (see :func:`parse`)."""
    return parse(read_yaml(root / CONFIG_FILE, CONFIG_FILE))


def configured_editions(config: BookConfig) -> list[Edition]:
    """Return every edition ``editions`` lists, English first, then in the file's order."""
    found = [
        Edition(code, entry.name, entry.title or config.title, dict(entry.config))
        for code, entry in config.editions.items()
    ]
    return sorted(found, key=lambda edition: edition.code != SOURCE_LANGUAGE)


def edition_folders(root: Path) -> list[str]:
    """Return the names of the folders under ``chapters/`` (each should be an edition)."""
    return sorted(
        path.name for path in (root / CHAPTERS_DIR).iterdir() if path.is_dir() and not path.name.startswith((".", "_"))
    )


def present_editions(root: Path) -> list[Edition]:
    """Return the configured editions that have a folder ``chapters/<code>/``, English first.

    Raises:
        ConfigError: if ``_config.yml`` is invalid, or a folder under ``chapters/``
            is not listed under ``editions``.
    """
    configured = configured_editions(load_config(root))
    codes = {edition.code for edition in configured}
    folders = edition_folders(root)
    for folder in folders:
        if folder not in codes:
            raise ConfigError(
                CONFIG_FILE,
                "editions",
                f"{CHAPTERS_DIR}/{folder}/ is not listed under `editions` (listed: {', '.join(sorted(codes))})",
            )
    return [edition for edition in configured if edition.code in folders]


def editions(root: Path) -> list[str]:
    """Return the language codes of the editions present (see :func:`present_editions`)."""
    return [edition.code for edition in present_editions(root)]
