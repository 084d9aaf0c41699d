"""The extension's settings: one typed, validated object, the Sphinx setting ``book``.

The derived ``_config.yml`` of an edition (``booktools.website.editions.edition_config``)
carries them under ``sphinx.config.book`` as a mapping, written from a
:class:`BookSettings` by :meth:`BookSettings.as_config`; ``_config.yml`` itself may set
the keys that are the book's to choose (``live_server``). Inside the build every module
of the extension reads them through :func:`settings`, which validates the mapping
against :class:`BookSettings` (``booktools.configuration.schema``): a missing, unknown or
mistyped key fails the build with a message that names it, what was expected and what
was given.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sphinx.application import Sphinx
from sphinx.config import Config
from sphinx.errors import ExtensionError

from booktools.configuration.schema import ConfigError, validate
from booktools.sources.strings import ApiStrings, LiveStrings, PdfStrings

CONFIG_VALUE = "book"
# Where messages say the settings come from.
SOURCE = "sphinx.config"
# The kernel the Live code button uses by default: the one `make serve` starts beside the site.
LOCAL_SERVER = "local"


def _live_server(value: str) -> str:
    server = value.strip()
    if server != LOCAL_SERVER and not server.startswith(("https://", "http://")):
        raise ValueError(f"expected {LOCAL_SERVER!r} or a BinderHub URL (https://...), got {value!r}")
    return server


@dataclass(frozen=True)
class SiteEdition:
    """One edition of the site, as the language switcher and the metadata name it."""

    code: str  # "ko"
    name: str  # "한국어"
    title: str  # the book's title in that language
    locale: str  # og:locale, "ko_KR"


@dataclass(frozen=True)
class PdfLink:
    """One PDF of the book, linked from every page's download menu."""

    name: str  # the framework, "pytorch"
    label: str  # its name as shown, "PyTorch"
    href: str  # the PDF's path in the site, relative to an edition's folder


@dataclass(frozen=True)
class BookSettings:
    """Everything the extension is told about the edition it builds.

    Every field may be left out: a build without editions gets no switcher, without
    PDF links no download links, without a warning file no tee of the warnings.
    """

    edition: str = ""  # the language code of the edition being built
    editions: tuple[SiteEdition, ...] = ()  # every edition of this build, for the switcher
    site_url: str = ""  # the site's base URL (booktools.website.site_url), for hreflang
    warning_file: str = ""  # where the build's warnings go (booktools.website.extension.warning_file)
    # where the Live code button's kernel runs: "local" or a BinderHub URL (booktools.website.extension.live)
    live_server: str = field(default=LOCAL_SERVER, metadata={"check": _live_server})
    pdf_links: tuple[PdfLink, ...] = ()  # booktools.website.extension.pdf_links
    # The edition's interface strings (booktools.sources.strings).
    live_strings: LiveStrings | None = None
    pdf_strings: PdfStrings | None = None
    api_strings: ApiStrings | None = None  # booktools.website.extension.api_links
    theme_words: dict[str, str] = field(default_factory=dict)  # booktools.website.extension.theme_words
    footer_author: str = ""

    def __post_init__(self) -> None:
        """Refuse an edition that is not among the editions, and an edition list without its own."""
        codes = [edition.code for edition in self.editions]
        if self.editions and self.edition not in codes:
            raise ValueError(f"{CONFIG_VALUE}.edition: expected one of {codes}, got {self.edition!r}")

    def as_config(self) -> dict[str, Any]:
        """Return the settings as the mapping the derived ``_config.yml`` holds (lists, not tuples)."""
        plain: dict[str, Any] = _plain(dataclasses.asdict(self))
        return plain

    @classmethod
    def from_config(cls, data: object, where: str = SOURCE) -> BookSettings:
        """Return the settings that the mapping ``data`` (``where``'s ``book``) holds.

        Raises:
            ConfigError: (a ValueError) naming the key, what was expected and what was given.
        """
        try:
            return validate(data, cls, where, CONFIG_VALUE)
        except ValueError as error:
            if isinstance(error, ConfigError):
                raise
            raise ConfigError(where, CONFIG_VALUE, str(error)) from error


def _plain(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items() if item is not None}
    if isinstance(value, (list, tuple)):
        return [_plain(item) for item in value]
    return value


def with_warning_file(derived: dict[str, Any], path: Path) -> None:
    """Set ``warning_file`` in the settings of a derived ``_config.yml`` (its ``sphinx.config.book``), in place."""
    config = derived.setdefault("sphinx", {}).setdefault("config", {})
    book = BookSettings.from_config(config.get(CONFIG_VALUE) or {}, "the derived _config.yml: sphinx.config")
    config[CONFIG_VALUE] = dataclasses.replace(book, warning_file=str(path)).as_config()


def settings(app: Sphinx) -> BookSettings:
    """Return the build's :class:`BookSettings` (the Sphinx setting ``book``, validated)."""
    return settings_of(app.config)


def settings_of(config: Config) -> BookSettings:
    """Return the :class:`BookSettings` of a Sphinx configuration.

    Raises:
        ExtensionError: if the setting ``book`` does not match :class:`BookSettings`.
    """
    try:
        return BookSettings.from_config(getattr(config, CONFIG_VALUE, None) or {})
    except ValueError as error:
        raise ExtensionError(str(error)) from error


def check_settings(app: Sphinx, config: Config) -> None:
    """Fail the build at its start when the setting ``book`` is invalid."""
    settings_of(config)


def register_settings(app: Sphinx) -> None:
    """Register the Sphinx setting ``book`` once, whichever of the book's extensions comes first."""
    if CONFIG_VALUE in app.config:
        return
    app.add_config_value(CONFIG_VALUE, {}, "env", types=[dict])
    # First of all: the other config-inited handlers read the settings.
    app.connect("config-inited", check_settings, priority=0)
