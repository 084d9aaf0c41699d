"""Lecture slides (``booktools.slides.decks``): d2lbook's slide notebooks as reveal.js decks.

On the built site: every page with slide marks has a deck per framework in every
edition, the chapter pages show no slide marks and link their decks, the landing
page links each edition's slides, and nothing is loaded from outside the site.
In headless Chromium, a deck of each edition: its slides counted, stepped through
with the keyboard, a heatmap loaded and an equation typeset by MathJax, with no
request leaving localhost.
"""

from __future__ import annotations

import re

import nbformat
import pytest

from booktools.configuration.config_file import configured_editions
from booktools.project import Project
from booktools.slides.decks import all_decks
from booktools.sources.frameworks import FRAMEWORKS
from booktools.sources.slide_marks import has_slides

PROJECT = Project.here()
EDITIONS = [edition.code for edition in configured_editions(PROJECT.config())]
CHAPTER = "attention-scoring-functions"
TIMEOUT_MS = 20_000
MARKS = ("[**", "**]", "(**", "**)", "[~~", "~~]", "(~~", "~~)")
EXTERNAL_ASSET = re.compile(r'(src|href)="https?://[^"]*\.(js|css)')


def marked_pages(code: str) -> list[str]:
    """The pages of an edition that have slide marks (each has a deck per framework)."""
    return [
        path.stem
        for path in PROJECT.pages(code)
        if path.suffix == ".ipynb" and has_slides(nbformat.read(path, as_version=4).cells)
    ]


def test_every_marked_page_has_a_deck_per_framework_in_every_edition(site, built_editions):
    assert marked_pages("en"), "the English pages carry slide marks"
    for code in built_editions:
        for page in marked_pages(code):
            for framework in FRAMEWORKS:
                assert (site / code / "slides" / f"{page}-{framework.name}.html").is_file(), (code, page, framework)
    assert {(deck.language, deck.page) for deck in all_decks(PROJECT)} >= {("en", page) for page in marked_pages("en")}


def test_built_pages_show_no_slide_marks_and_link_their_decks(site, built_editions):
    for code in built_editions:
        for page in PROJECT.pages(code):
            html = (site / code / f"{page.stem}.html").read_text(encoding="utf-8")
            main = html[html.find("<main") :]
            assert not [mark for mark in MARKS if mark in main], f"{code}/{page.stem}.html shows slide marks"
            if page.stem in marked_pages(code):
                for framework in FRAMEWORKS:
                    assert f'href="slides/{page.stem}-{framework.name}.html"' in html, (code, page.stem)


def test_the_landing_page_links_each_editions_slides(site, built_editions):
    landing = (site / "index.html").read_text(encoding="utf-8")
    for code in built_editions:
        if marked_pages(code):
            assert f'href="{code}/slides/index.html"' in landing
            assert (site / code / "slides" / "index.html").is_file()


def test_decks_load_nothing_from_outside_the_site(site, built_editions):
    for code in built_editions:
        for deck in (site / code / "slides").glob("*.html"):
            assert not EXTERNAL_ASSET.search(deck.read_text(encoding="utf-8")), deck


@pytest.mark.parametrize("code", EDITIONS)
def test_a_deck_steps_through_its_slides_with_heatmaps_and_equations(page, site_url, built_editions, screenshots, code):
    if code not in built_editions:
        pytest.fail(f"the {code} edition was not built")
    if CHAPTER not in marked_pages(code):
        pytest.fail(f"{code}/{CHAPTER} has no slide marks, so no deck")
    response = page.goto(f"{site_url}/{code}/slides/{CHAPTER}-pytorch.html", wait_until="load")
    assert response is not None and response.ok
    page.wait_for_function("() => window.Reveal && Reveal.isReady()", timeout=TIMEOUT_MS)
    total = page.evaluate("() => Reveal.getTotalSlides()")
    assert total >= 10, "about one slide per idea of the chapter"
    assert page.locator(".reveal .slides > section").count() >= 10

    seen = [page.evaluate("() => Reveal.getIndices().h")]
    page.locator(".reveal").focus()
    for _ in range(total - 1):
        page.keyboard.press("ArrowRight")
        page.wait_for_function(f"() => Reveal.getIndices().h !== {seen[-1]} || Reveal.isLastSlide()")
        seen.append(page.evaluate("() => Reveal.getIndices().h"))
    assert seen == list(range(len(seen))), "the right arrow key walks the slides in order"
    assert page.evaluate("() => Reveal.isLastSlide()")
    page.keyboard.press("Home")
    page.wait_for_function("() => Reveal.getIndices().h === 0")

    page.wait_for_function("() => document.querySelectorAll('mjx-container').length > 0", timeout=TIMEOUT_MS)
    assert page.locator(".reveal mjx-container").count() > 0, "equations are typeset"
    raw = "() => [...document.querySelectorAll('.jp-RenderedMarkdown')].some(e => /\\$[^$]+\\$/.test(e.textContent))"
    assert not page.evaluate(raw), "no $...$ left untypeset"
    images = page.evaluate(
        "() => [...document.querySelectorAll('.reveal img')].map(i => i.complete && i.naturalWidth > 0)"
    )
    assert images and all(images), "every heatmap is loaded"
    page.screenshot(path=str(screenshots / f"{code}-slides.png"))
    assert page.external_requests == [], "requests that left localhost"
    assert page.errors == [], "JavaScript errors"
