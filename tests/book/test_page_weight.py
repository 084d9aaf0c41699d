"""What makes the Lighthouse scores (``make audit``), checked in the built HTML in seconds.

``make audit`` runs Lighthouse on every page (minutes, not part of ``make test``);
these tests guard what its scores rest on (``booktools.website.extension.loading``):
what a page must fetch before its first paint and how much, no icon or math
script, icon fonts cut to the glyphs used, code blocks checked for a tab stop as
they are reached, deferred scripts, a favicon, images
with their size and loaded lazily, the search index only where searched, Korean
set between words.
"""

from __future__ import annotations

import gzip
import json
import re
import urllib.parse
from pathlib import Path

import pydata_sphinx_theme
import pytest
from bs4 import BeautifulSoup, Tag
from fontTools.ttLib import TTFont

from booktools.project import Project
from booktools.website.extension import code_layout, font_subset, icon_font, stylesheets, tab_stops

PROJECT = Project.here()
# Bytes (gzipped, as served) of the stylesheets and scripts a page must load before its first paint:
# one bundled stylesheet (booktools.website.extension.stylesheets), ~29 KB, which Lighthouse's phone
# (1.6 Mbit/s) loads in ~0.15 s; the theme's thirteen stylesheets were 97 KB.
RENDER_BLOCKING_BUDGET = 40_000
# The page's own HTML, gzipped: the longest page (the library's engineering) is the largest,
# 72 KB in English and 80 KB in Korean since its formulas are typeset at build time (KaTeX's
# HTML and MathML: about 9 KB more than before, and no 265 KB math script to load).
HTML_BUDGET = 88_000
# An inline script in <head> (the colour mode, Sphinx's options) is this small at most.
INLINE_HEAD_SCRIPT_BUDGET = 1_500
NO_SCRIPTS = ("fontawesome", "searchindex.js")
THEME_SCRIPT = "scripts/pydata-sphinx-theme.js"  # under _static/
# A Font Awesome font cut to the glyphs the stylesheets name (booktools.website.extension.icon_font):
# a few KB; the solid one was 156 KB.
ICON_FONT_BUDGET = 8_000
MATH_SCRIPTS = ("mathjax", "katex")
KEEP_ALL = re.compile(r'html\[lang="?ko"?\] body\s*\{[^}]*word-break:\s*keep-all', re.DOTALL)
# static/book.css: a code block with its number of lines is laid out when reached, holding their height.
LAID_OUT_WHEN_REACHED = re.compile(
    r'pre\[style\*="--lines"\]\s*\{[^}]*content-visibility:\s*auto;[^}]*'
    r"contain-intrinsic-block-size:\s*auto calc\(var\(--lines\) \* 1lh\)",
    re.DOTALL,
)


def pages(site: Path) -> list[Path]:
    """Every HTML page of the site: the landing page and every page of every edition."""
    return [site / "index.html", *sorted(site.glob("*/*.html"))]


def local(page: Path, url: str) -> Path:
    """The file a relative URL of ``page`` names."""
    return (page.parent / urllib.parse.unquote(url.split("?")[0].split("#")[0])).resolve()


def is_blocking(element: Tag) -> bool:
    """Whether a <link> or <script> of the head must load before the page is painted."""
    if element.name == "link":
        rel = element.get("rel") or []
        return "stylesheet" in rel and element.get("media") in (None, "all", "screen")
    return (
        element.name == "script"
        and bool(element.get("src"))
        and not element.has_attr("defer")
        and not element.has_attr("async")
        and element.get("type") != "module"
    )


def blocking_bytes(page: Path, head: Tag) -> tuple[int, list[str]]:
    """The gzipped bytes of what blocks the first paint of ``page``, with a stylesheet's @import."""
    total, names = 0, []
    for element in head.find_all(["link", "script"]):
        if not is_blocking(element):
            continue
        url = str(element.get("href") or element.get("src"))
        files = [local(page, url)]
        text = files[0].read_text(encoding="utf-8")
        files += [local(files[0], found) for found in re.findall(r'@import\s+(?:url\()?"([^"]+)"', text)]
        for file in files:
            total += len(gzip.compress(file.read_bytes(), compresslevel=6))
            names.append(file.name)
    return total, names


@pytest.fixture(scope="module")
def parsed(site: Path) -> dict[Path, BeautifulSoup]:
    """Every page of the site, parsed."""
    return {page: BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser") for page in pages(site)}


def test_little_blocks_the_first_paint(parsed: dict[Path, BeautifulSoup], site: Path):
    over = {}
    for page, soup in parsed.items():
        size, names = blocking_bytes(page, soup.head)
        if size > RENDER_BLOCKING_BUDGET:
            over[str(page.relative_to(site))] = (size, names)
    assert over == {}, f"render-blocking bytes over {RENDER_BLOCKING_BUDGET} (gzipped): {over}"


def test_no_script_file_blocks_the_page_and_inline_head_scripts_are_tiny(parsed: dict[Path, BeautifulSoup]):
    for page, soup in parsed.items():
        for script in soup.head.find_all("script"):
            if script.get("src"):
                assert not is_blocking(script), f"{page}: {script.get('src')} is neither deferred nor async"
            elif script.get("type") in (None, "text/javascript"):
                assert len(script.get_text()) <= INLINE_HEAD_SCRIPT_BUDGET, f"{page}: inline script {script}"


def test_the_pages_html_is_light(site: Path):
    for page in pages(site):
        size = len(gzip.compress(page.read_bytes(), compresslevel=6))
        assert size <= HTML_BUDGET, f"{page.relative_to(site)}: {size} bytes gzipped, over {HTML_BUDGET}"


def test_no_icon_script_and_no_search_index_with_the_page(parsed: dict[Path, BeautifulSoup]):
    for page, soup in parsed.items():
        sources = [str(script.get("src")) for script in soup.find_all("script") if script.get("src")]
        assert not [src for src in sources if any(name in src.lower() for name in NO_SCRIPTS)], page
        left = soup.select('i[class*="fa-"], span[class*="fa-"]')
        assert not left, f"{page}: Font Awesome markup left for a script or the icon font: {left[:3]}"


def test_pages_with_admonitions_preload_the_solid_icon_font(parsed: dict[Path, BeautifulSoup]):
    font = icon_font.SOLID_FONT.name
    for page, soup in parsed.items():
        preloaded = [link["href"] for link in soup.head.find_all("link", rel="preload") if font in link["href"]]
        # (The search page's notice for readers without JavaScript is an admonition in <noscript>.)
        titles = [title for title in soup.select("p.admonition-title") if not title.find_parent("noscript")]
        assert bool(preloaded) == bool(titles), f"{page}: {preloaded}"
        assert all(local(page, href).is_file() for href in preloaded), page


def test_the_icon_fonts_hold_only_the_glyphs_the_stylesheets_name(site: Path):
    for edition in sorted(path.parent for path in site.glob("*/index.html")):
        named = font_subset.stylesheet_characters((edition / "_static").glob(f"{stylesheets.BUNDLE_PREFIX}*.css"))
        fonts = sorted((edition / icon_font.WEBFONTS).glob("*.woff2"))
        assert fonts, f"{edition}: no Font Awesome fonts (has the theme moved them?)"
        for font in fonts:
            assert font.stat().st_size <= ICON_FONT_BUDGET, f"{font}: {font.stat().st_size} bytes"
            with TTFont(font) as opened:
                held = set(opened.getBestCmap())
            assert held <= named, f"{font}: glyphs no stylesheet names: {sorted(map(hex, held - named))[:5]}"
        with TTFont(edition / icon_font.WEBFONTS / "fa-solid-900.woff2") as solid:
            # The bell of an admonition's title (the exercises): the theme draws it with the font.
            assert 0xF0F3 in solid.getBestCmap(), f"{edition}: the admonition icon is not in the solid font"


def test_no_math_script(parsed: dict[Path, BeautifulSoup]):
    for page, soup in parsed.items():
        sources = [str(script.get("src")).lower() for script in soup.find_all("script") if script.get("src")]
        assert not [src for src in sources if any(name in src for name in MATH_SCRIPTS)], page


def test_every_page_has_a_favicon(parsed: dict[Path, BeautifulSoup]):
    for page, soup in parsed.items():
        icon = soup.head.find("link", rel="icon")
        assert icon is not None, f"{page}: no <link rel=icon> (the browser asks for /favicon.ico: a 404)"
        assert local(page, str(icon["href"])).is_file(), f"{page}: favicon {icon['href']} missing"


def test_every_image_has_its_size_and_loads_when_scrolled_to(parsed: dict[Path, BeautifulSoup]):
    for page, soup in parsed.items():
        for image in soup.find_all("img"):
            assert image.get("width") and image.get("height"), f"{page}: {image.get('src')} without width/height"
            assert image.get("loading") == "lazy", f"{page}: {image.get('src')} loads with the page"


def test_colour_mode_is_set_before_the_first_paint(parsed: dict[Path, BeautifulSoup]):
    for page, soup in parsed.items():
        if soup.find("body", attrs={"data-default-mode": True}) is None:
            continue  # not a theme page (the landing page)
        first = soup.head.find("script")
        assert first is not None and '"auto"' in first.get_text(), f"{page}: no colour mode before the stylesheets"


def test_korean_pages_break_lines_between_words(parsed: dict[Path, BeautifulSoup], site: Path):
    korean = [(page, soup) for page, soup in parsed.items() if soup.html.get("lang") == "ko"]
    assert korean, "no Korean page"
    for page, soup in korean:
        styles = [local(page, str(link["href"])) for link in soup.head.find_all("link", rel="stylesheet")]
        assert any(KEEP_ALL.search(path.read_text(encoding="utf-8")) for path in styles), page


def test_code_blocks_are_checked_for_a_tab_stop_as_they_are_reached(site: Path, parsed: dict[Path, BeautifulSoup]):
    shipped = Path(pydata_sphinx_theme.__file__).parent / "theme" / "pydata_sphinx_theme" / "static" / THEME_SCRIPT
    for edition in sorted(path.parent for path in site.glob("*/index.html")):
        script = edition / "_static" / THEME_SCRIPT
        assert script.read_bytes() == shipped.read_bytes(), f"{script}: not the theme's script as it ships"
    override = {"selector": tab_stops.THEME_SELECTOR, "lines": code_layout.LINES_PROPERTY}
    blocks = 0
    themed = 0
    for page, soup in parsed.items():
        if not soup.find("script", src=lambda src: bool(src) and THEME_SCRIPT in src):
            continue  # the landing page: no theme script, nothing to override
        themed += 1
        head = "".join(script.get_text() for script in soup.head.find_all("script"))
        given = re.search(r"var theme = (\{.*?\}), query = document\.querySelectorAll", head)
        assert given and json.loads(given.group(1)) == override, f"{page}: no override of the theme's tab-stop check"
    assert themed > 20, "the editions' pages load the theme's script"
    for page, soup in parsed.items():
        for block in soup.find_all("pre"):
            blocks += 1
            assert block.get("tabindex") == "0", f"{page}: a code block a keyboard cannot scroll until checked"
    assert blocks > 100, "the chapters' code blocks"


def test_code_blocks_are_laid_out_when_reached_holding_the_height_of_their_lines(
    site: Path, parsed: dict[Path, BeautifulSoup]
):
    """Every code block is laid out when the reader comes near it (code_layout), holding its lines' height."""
    for page, soup in parsed.items():
        styles = " ".join(
            local(page, str(link["href"])).read_text(encoding="utf-8")
            for link in soup.head.find_all("link", rel="stylesheet")
        )
        blocks = soup.find_all("pre")
        if blocks:
            assert LAID_OUT_WHEN_REACHED.search(styles), f"{page}: no stylesheet lays its code blocks out when reached"
        for block in blocks:
            lines = code_layout.line_count(block.decode_contents())
            assert block.get("style") == f"{code_layout.LINES_PROPERTY}: {lines}", page
