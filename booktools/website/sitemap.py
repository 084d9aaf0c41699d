"""The site's ``sitemap.xml`` and ``robots.txt``, at its root (``booktools.project.SITE_FILES``).

Each edition is a Sphinx build of its own, and sphinx-sitemap writes its
``<code>/sitemap.xml``: every page of that edition (but the search page,
``sitemap_excludes`` in ``_config.yml``), each with its ``xhtml:link`` alternates
in every edition (``sitemap_locales``, ``booktools.website.site_url``). Search
engines read one sitemap per site, so this module merges the editions' into
``sitemap.xml`` at the root, with what no edition's build knows: each page's
``x-default`` alternate and the landing page with its alternates. The editions'
own stay in their builds' folders (``booktools.website.jupyter_book.built_html``): they
are not copied into the site, so that the site has one. ``robots.txt`` lets every crawler
in and names the sitemap by its absolute URL.
"""

from __future__ import annotations

from pathlib import Path
from xml.etree import ElementTree

from booktools.project import SITE_FILES
from booktools.website import site_url

SITEMAP_NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
XHTML_NS = "http://www.w3.org/1999/xhtml"
URL, LOC, LINK = f"{{{SITEMAP_NS}}}url", f"{{{SITEMAP_NS}}}loc", f"{{{XHTML_NS}}}link"


class SitemapError(Exception):
    """An edition's sitemap is missing or lists a page outside the edition."""


def url_entry(loc: str, links: list[site_url.Alternate]) -> ElementTree.Element:
    """Return a sitemap ``<url>`` for ``loc`` with its ``xhtml:link`` alternates."""
    entry = ElementTree.Element(URL)
    ElementTree.SubElement(entry, LOC).text = loc
    for link in links:
        ElementTree.SubElement(entry, LINK, rel="alternate", hreflang=link.hreflang, href=link.url)
    return entry


def edition_entries(path: Path, base: str, code: str, codes: list[str], root: str) -> list[ElementTree.Element]:
    """Return the ``<url>`` entries of edition ``code``'s sitemap ``path``, each with its ``x-default`` alternate.

    Raises:
        SitemapError: if the edition has no sitemap, or it lists a page outside the edition.
    """
    if not path.is_file():
        raise SitemapError(f"{code}: no {SITE_FILES.sitemap} (sphinx-sitemap writes it)")
    prefix = site_url.edition_url(base, code)
    entries = ElementTree.parse(path).getroot().findall(URL)
    for entry in entries:
        loc = entry.findtext(LOC) or ""
        if not loc.startswith(prefix):
            raise SitemapError(f"{code}: {SITE_FILES.sitemap} lists {loc!r}, outside {prefix}")
        default = site_url.alternates(base, codes, loc[len(prefix) :], root)[-1]
        ElementTree.SubElement(entry, LINK, rel="alternate", hreflang=default.hreflang, href=default.url)
    return entries


def write_sitemap(site: Path, base: str, sitemaps: dict[str, Path], root: str) -> Path:
    """Write ``site/sitemap.xml``: the landing page, then every edition's pages.

    ``sitemaps`` maps each edition's language code to the sitemap its build wrote, ``root`` is
    their root page's file (``index.html``).

    Raises:
        SitemapError: see :func:`edition_entries`.
    """
    ElementTree.register_namespace("", SITEMAP_NS)
    ElementTree.register_namespace("xhtml", XHTML_NS)
    urlset = ElementTree.Element(f"{{{SITEMAP_NS}}}urlset")
    codes = list(sitemaps)
    landing = site_url.site_url(base, SITE_FILES.landing)
    urlset.append(url_entry(landing, site_url.alternates(base, codes, root, root)))
    for code, path in sitemaps.items():
        urlset.extend(edition_entries(path, base, code, codes, root))
    ElementTree.indent(urlset)
    path = site / SITE_FILES.sitemap
    ElementTree.ElementTree(urlset).write(path, encoding="utf-8", xml_declaration=True)
    return path


def write_robots(site: Path, base: str) -> Path:
    """Write ``site/robots.txt``: every crawler may read every page, and the sitemap is at its absolute URL."""
    path = site / SITE_FILES.robots
    sitemap = site_url.site_url(base, SITE_FILES.sitemap)
    path.write_text(f"User-agent: *\nAllow: /\n\nSitemap: {sitemap}\n", encoding="utf-8")
    return path
