"""The book's own settings in ``_config.yml``, validated on load: the editions and the repository.

``_config.yml`` is Jupyter Book's configuration. booktools reads a few keys of it
and checks them against the schema below (``booktools.configuration.schema``): ``editions``,
which is booktools' own (Jupyter Book never sees it), ``title`` and
``repository``, which the Colab install cell and the editions' titles use, ``author``,
which the PDFs' cover names, and
``html.baseurl``, the address the site is published at, from which every absolute
URL of the site is made (``booktools.website.site_url``). Every
other key is Jupyter Book's and is passed to it as it is, except a key that looks
like a misspelling of one of these.

The editions are one fact, read here only: the language codes listed under
``editions``, English first. ``booktools.project.Project.editions`` says which of
them have a folder of pages; a folder that is not listed is an error.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar
from urllib.parse import urlsplit

from booktools.configuration.schema import ConfigError, validate

__all__ = [
    "SOURCE_LANGUAGE",
    "BookConfig",
    "ConfigError",
    "Edition",
    "EditionSettings",
    "HtmlSettings",
    "ParseSettings",
    "Repository",
    "configured_editions",
    "parse",
]

SOURCE_LANGUAGE = "en"


@dataclass(frozen=True)
class EditionSettings:
    """One entry of ``editions``: how one language edition differs from English."""

    name: str  # the name its readers know the language by, in the switcher: "한국어"
    title: str | None = None  # the book's title in that language (default: the top-level title)
    locale: str | None = None  # Open Graph's og:locale, language_TERRITORY: "ko_KR" (default: the code)
    config: dict[str, Any] = field(default_factory=dict)  # Sphinx settings of this edition only


@dataclass(frozen=True)
class Repository:
    """``repository``: where the book is published (Colab buttons, the notebooks' install cell)."""

    url: str
    branch: str = "main"
    path_to_book: str = ""


def _absolute_base_url(value: str) -> str:
    """Check that ``html.baseurl`` is an absolute http(s) URL; return it ending with ``/``."""
    parts = urlsplit(value)
    if parts.scheme not in {"http", "https"} or not parts.netloc or parts.query or parts.fragment:
        raise ValueError(f"expected the absolute http(s) URL the site is published at, got {value!r}")
    return value if value.endswith("/") else f"{value}/"


@dataclass(frozen=True)
class HtmlSettings:
    """``html``: Jupyter Book's HTML settings, of which booktools reads the site's address."""

    PASS_THROUGH: ClassVar[str] = "Jupyter Book"

    # The site's root URL (the landing page's folder); each edition is published under <baseurl><code>/.
    baseurl: str = field(metadata={"check": _absolute_base_url})


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
    html: HtmlSettings
    title: str = ""
    author: str = ""  # the book's authors, on the PDFs' cover
    parse: ParseSettings = field(default_factory=ParseSettings)


@dataclass(frozen=True)
class Edition:
    """One language edition of the book, with its title resolved."""

    code: str
    name: str
    title: str
    config: dict[str, Any] = field(default_factory=dict, compare=False)
    locale: str = ""  # og:locale ("ko_KR"); configured_editions gives the code where _config.yml names none


def parse(data: object, file: str = "_config.yml") -> BookConfig:
    """Validate the data of ``_config.yml``.

    Raises:
        ConfigError: for a misspelt key, a value of the wrong type, or no English edition.
    """
    config = validate(data, BookConfig, file)
    if SOURCE_LANGUAGE not in config.editions:
        raise ConfigError(file, "editions", f"expected the source language {SOURCE_LANGUAGE!r} among the editions")
    return config


def configured_editions(config: BookConfig) -> list[Edition]:
    """Return every edition ``editions`` lists, English first, then in the file's order."""
    found = [
        Edition(code, entry.name, entry.title or config.title, dict(entry.config), entry.locale or code)
        for code, entry in config.editions.items()
    ]
    return sorted(found, key=lambda edition: edition.code != SOURCE_LANGUAGE)
