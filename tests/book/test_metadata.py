"""Found and shared: every page's description, Open Graph tags, canonical link and hreflang
alternates, the site's sitemap.xml and robots.txt, all from ``html.baseurl`` in ``_config.yml``."""

from __future__ import annotations

import functools
import re
from pathlib import Path
from xml.etree import ElementTree

import pytest
from bs4 import BeautifulSoup
from docutils.core import publish_doctree

from booktools.configuration.config_file import ConfigError, configured_editions, parse
from booktools.project import SITE_FILES, SOURCE_LANGUAGE, Project
from booktools.website import editions, site_url
from booktools.website.extension.metadata import DESCRIPTION_LENGTH, page_description, plain_tex, shorten
from booktools.website.sitemap import LINK, LOC, URL

HANGUL = re.compile(r"[\uac00-\ud7a3]")
# Markup or TeX that must not reach a description.
RESIDUE = re.compile(r"[\\$<>{}]|\*\*|\[\*|\(\*")
OPEN_GRAPH = ("og:title", "og:type", "og:url", "og:site_name", "og:description", "og:image", "og:locale")
# Built HTML files that are not pages of the book, and why the sitemap leaves them out.
NOT_IN_SITEMAP = {
    "search.html": "the search page is a tool whose results are made in the browser (sitemap_excludes)",
}
NOT_PAGES = (
    "_static/",  # the theme's and Thebe's assets
    "slides/",  # the lecture decks, reveal.js presentations linked from the pages
)


@pytest.fixture(scope="module")
def base(book_config: dict) -> str:
    return site_url.base_url(book_config)


@pytest.fixture(scope="module")
def locales(book_config: dict) -> dict[str, str]:
    return {edition.code: edition.locale for edition in configured_editions(parse(book_config))}


@functools.cache
def soup(path: Path) -> BeautifulSoup:
    """The page's ``<html>`` tag and head (what this file checks), parsed once."""
    text = path.read_text(encoding="utf-8")
    return BeautifulSoup(text[: text.index("</head>")] + "</head></html>", "html.parser")


def meta(page: BeautifulSoup, key: str) -> str:
    """The content of the page's one ``<meta property=key>`` or ``<meta name=key>``."""
    found = page.find_all("meta", attrs={"property": key}) or page.find_all("meta", attrs={"name": key})
    assert len(found) == 1, f"{key}: {found}"
    return str(found[0]["content"])


def alternates(page: BeautifulSoup) -> dict[str, str]:
    links = page.head.find_all("link", rel="alternate", hreflang=True)
    found = {str(link["hreflang"]): str(link["href"]) for link in links}
    assert len(found) == len(links), links
    return found


def site_path(url: str, base: str, site: Path) -> Path:
    assert url.startswith(base), url
    return site / url[len(base) :]


def book_pages(site: Path, code: str) -> list[Path]:
    """The HTML pages Sphinx wrote for edition ``code`` (the book's pages, the API page, search, indices)."""
    return sorted(
        path for path in (site / code).rglob("*.html") if not str(path.relative_to(site / code)).startswith(NOT_PAGES)
    )


# Descriptions, from a page's doctree ---------------------------------------------------------------


def test_a_long_description_ends_at_a_sentence_or_a_word():
    sentence = "Attention turns the match between a query and keys into weights. "
    assert shorten(sentence * 5) == (sentence * 2).strip()
    words = " ".join(["softmax"] * 40)
    cut = shorten(words)
    assert len(cut) <= DESCRIPTION_LENGTH and cut.endswith("softmax…")
    assert shorten("짧은 설명입니다.") == "짧은 설명입니다."


def test_a_description_leaves_formulas_out_or_writes_them_plainly():
    before = "Attention pools the values with weights that are non-negative and sum to one. " * 2
    doctree = publish_doctree(f"Title\n=====\n\n{before}Its scores are :math:`a(\\mathbf{{q}}, \\mathbf{{k}}_i)`.\n")
    assert page_description(doctree) == before.strip()
    doctree = publish_doctree("Title\n=====\n\nThe score :math:`\\mathbf{q}^\\top \\mathbf{k}` is cheap.\n")
    assert page_description(doctree) == "The score qᵀ k is cheap."
    assert plain_tex(r"(\mathbf{k}_1, \mathbf{v}_1), \ldots") == "(k1, v1), …"


def test_a_description_is_prose_not_code_or_notes():
    doctree = publish_doctree(
        "Title\n=====\n\n.. note::\n\n   A note.\n\n::\n\n   code = 1\n\nThe first paragraph of prose, long enough.\n"
    )
    assert page_description(doctree) == "The first paragraph of prose, long enough."


# The base URL -------------------------------------------------------------------------------------


def test_one_base_url_in_the_configuration(book_config, base):
    assert base == book_config["html"]["baseurl"].rstrip("/") + "/"
    assert base.startswith("https://")
    edition = configured_editions(parse(book_config))[1]
    derived = editions.edition_config(book_config, edition, [edition], Project.here())
    assert derived["html"]["baseurl"] == f"{base}{edition.code}/"
    assert derived["sphinx"]["config"]["ogp_site_url"] == f"{base}{edition.code}/"
    assert derived["sphinx"]["config"]["site_url"] == base


@pytest.mark.parametrize("value", ["/attention/", "attention.example.org", "ftp://example.org/", None])
def test_a_base_url_that_is_not_absolute_is_refused(book_config, value):
    with pytest.raises(ConfigError, match=r"html\.baseurl"):
        site_url.base_url({**book_config, "html": {**book_config["html"], "baseurl": value}})


# The built site ------------------------------------------------------------------------------------


def test_every_page_describes_itself_in_its_language(site, built_editions):
    english: dict[str, str] = {}
    for code in built_editions:
        for path in book_pages(site, code):
            page = soup(path)
            described = meta(page, "description")
            assert 30 <= len(described) <= DESCRIPTION_LENGTH, (path, described)
            assert not RESIDUE.search(described), (path, described)
            assert meta(page, "og:description") == described, path
            if code == SOURCE_LANGUAGE:
                english[path.name] = described
            elif path.name in english:
                assert described != english[path.name], (path, described)
            if code == "ko":
                assert HANGUL.search(described), (path, described)


def test_every_page_has_its_canonical_url_open_graph_tags_and_language(site, built_editions, base, locales):
    for code in built_editions:
        for path in book_pages(site, code):
            page = soup(path)
            own = base + str(path.relative_to(site))
            assert page.html["lang"] == code, path
            canonical = page.head.find_all("link", rel="canonical")
            assert [link["href"] for link in canonical] == [own], path
            assert all(meta(page, key) for key in OPEN_GRAPH), path
            assert meta(page, "og:url") == own, path
            assert meta(page, "og:locale") == locales[code], path
            others = {tag["content"] for tag in page.find_all("meta", attrs={"property": "og:locale:alternate"})}
            assert others == {locales[other] for other in built_editions if other != code}, path
            assert site_path(meta(page, "og:image"), base, site).is_file(), path


def test_every_page_links_itself_in_every_edition_and_x_default(site, built_editions, base):
    for code in built_editions:
        for path in book_pages(site, code):
            name = str(path.relative_to(site / code))
            links = alternates(soup(path))
            expected = {other: f"{base}{other}/{name}" for other in built_editions}
            default = base + (SITE_FILES.landing if name == "index.html" else f"{SOURCE_LANGUAGE}/{name}")
            assert links == {**expected, "x-default": default}, path
            assert all(site_path(url, base, site).is_file() for url in links.values()), path


def test_the_landing_page_is_english_and_links_the_editions(site, built_editions, base):
    page = soup(site / SITE_FILES.landing)
    assert page.html["lang"] == SOURCE_LANGUAGE
    assert len(meta(page, "description")) >= 30
    assert [link["href"] for link in page.head.find_all("link", rel="canonical")] == [base + SITE_FILES.landing]
    expected = {code: f"{base}{code}/index.html" for code in built_editions}
    assert alternates(page) == {**expected, "x-default": base + SITE_FILES.landing}
    assert all(meta(page, key) for key in OPEN_GRAPH)
    assert site_path(meta(page, "og:image"), base, site).is_file()


def test_the_preview_image_is_a_large_png(site):
    from PIL import Image

    with Image.open(site / SITE_FILES.preview) as image:
        assert image.format == "PNG" and image.size == (1200, 630)


def test_the_sitemap_lists_every_page_with_its_alternates(site, built_editions, base):
    entries = ElementTree.parse(site / SITE_FILES.sitemap).getroot().findall(URL)
    listed = {entry.findtext(LOC): entry for entry in entries}
    assert len(listed) == len(entries), "a page is listed twice"
    pages = [site / SITE_FILES.landing] + [
        path for code in built_editions for path in book_pages(site, code) if path.name not in NOT_IN_SITEMAP
    ]
    assert sorted(listed) == sorted(base + str(path.relative_to(site)) for path in pages)
    assert not [code for code in built_editions if (site / code / SITE_FILES.sitemap).exists()], "one sitemap"
    for path in pages:
        entry = listed[base + str(path.relative_to(site))]
        links = {link.get("hreflang"): link.get("href") for link in entry.findall(LINK)}
        assert links == alternates(soup(path)), path


def test_robots_txt_lets_crawlers_in_and_names_the_sitemap(site, base):
    lines = (site / SITE_FILES.robots).read_text(encoding="utf-8").splitlines()
    assert "User-agent: *" in lines
    assert "Disallow: /" not in lines
    assert f"Sitemap: {base}{SITE_FILES.sitemap}" in lines
