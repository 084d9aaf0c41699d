"""The site's absolute URLs, every one made from ``html.baseurl`` in ``_config.yml``.

The site is published at one address, the *base URL* (``html.baseurl``, the
folder of the landing page), and each edition under ``<base><code>/``. A page's
URL is the base URL joined with its path in the built site (``_build/html``), so
that a built file and its address are one fact. From it come:

- each edition's ``html.baseurl`` (Jupyter Book's name for Sphinx's
  ``html_baseurl``, hence the canonical link) and Sphinx settings:
  ``ogp_site_url`` and ``ogp_image`` (sphinxext-opengraph's og:url and og:image),
  ``site_url``, ``sitemap_url_scheme`` and ``sitemap_locales`` (sphinx-sitemap's
  locations and alternates); the theme's hreflang links take the base URL from
  its settings (``booktools.website.editions.book_settings``);
- the hreflang alternates of a page: the same page in every edition and
  ``x-default``, the English page, except for the editions' root pages, whose
  ``x-default`` is the landing page, the language chooser that ``x-default``
  is meant for (the landing page names the same alternates);
- the landing page's, the root sitemap's and ``robots.txt``'s URLs
  (``booktools.website.sitemap``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from booktools.configuration import config_file as book_config
from booktools.configuration.config_file import Edition
from booktools.project import SITE_FILES, SOURCE_LANGUAGE

DEFAULT_HREFLANG = "x-default"


@dataclass(frozen=True)
class Alternate:
    """One ``<link rel="alternate" hreflang>`` of a page: a language code (or ``x-default``) and a URL."""

    hreflang: str
    url: str


def base_url(config: dict[str, Any]) -> str:
    """Return ``html.baseurl`` of ``_config.yml`` (read as ``config``), ending with ``/``.

    Raises:
        booktools.configuration.config_file.ConfigError: if it is missing or not an absolute http(s) URL.
    """
    return book_config.parse(config).html.baseurl


def site_url(base: str, path: str) -> str:
    """Return the URL of ``path``, a path in the built site (``ko/index.html``)."""
    return base + path.lstrip("/")


def edition_url(base: str, code: str, target: str = "") -> str:
    """Return the URL of ``target`` (a page's file, ``index.html``) in edition ``code``, or of the edition's folder."""
    return site_url(base, f"{code}/{target}")


def alternates(base: str, codes: list[str], target: str, root: str) -> list[Alternate]:
    """Return the hreflang alternates of the page ``target`` of every edition: one per edition and ``x-default``.

    ``root`` is the editions' root page (``index.html``), whose ``x-default`` is the landing page.
    """
    default = site_url(base, SITE_FILES.landing) if target == root else edition_url(base, SOURCE_LANGUAGE, target)
    return [*(Alternate(code, edition_url(base, code, target)) for code in codes), Alternate(DEFAULT_HREFLANG, default)]


def url_config(base: str, edition: Edition, built: list[Edition]) -> dict[str, Any]:
    """Return the Sphinx settings of ``edition`` that its URLs come from (see the module docstring)."""
    return {
        "ogp_site_url": edition_url(base, edition.code),
        "ogp_image": site_url(base, SITE_FILES.preview),
        "site_url": base,
        "sitemap_url_scheme": "{lang}{link}",
        "sitemap_locales": [other.code for other in built],
    }
