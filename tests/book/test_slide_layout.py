"""Every slide of every deck fits a 1280x720 screen and reads as a slide (``booktools.slides.fit``).

In headless Chromium at 1280x720, one tab per deck (edition x framework x page), every slide is
shown through Reveal's API and measured in one script (``slide_layout.js``): no element reaches
past the screen's edge, scrolls sideways or is clipped, code is at least 18px on screen, a
section's title is a heading and not words run into the next sentence, and on the Korean
slides no word is broken across two lines (``word-break: keep-all``) and the text is set in
a font with Hangul. Without a browser: no deck shows a quiz's source, keys or explanations.
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest

from booktools.project import Project
from booktools.slides.decks import Deck, all_decks
from booktools.sources.slide_marks import MARKED_HEADING, strip_slide_marks

PROJECT = Project.here()
DECKS = all_decks(PROJECT)
SCREEN = {"width": 1280, "height": 720}
MIN_CODE_PX = 18
TIMEOUT_MS = 20_000
LAYOUT_SCRIPT = (Path(__file__).with_name("slide_layout.js")).read_text(encoding="utf-8")
HANGUL_FONT = "Noto Sans CJK KR"
# What a quiz cell shows: its call, and the answer keys and explanations it prints.
QUIZ_SOURCE = ("show_quiz", "d2l_lib.quiz")


def slide_titles(deck: Deck) -> list[str]:
    """The section titles of a deck's page with a slide mark (``## [**Checking Shapes**]``)."""
    source = nbformat.read(PROJECT.edition_dir(deck.language) / f"{deck.page}.ipynb", as_version=4)
    return [
        re.sub(r"[*`]", "", strip_slide_marks(match.group(0)).lstrip("#")).strip()
        for cell in source.cells
        if cell.cell_type == "markdown"
        for match in MARKED_HEADING.finditer(cell.source)
    ]


def hangul_fonts(page) -> set[str]:
    """The fonts Chromium draws the deck's first paragraph in (DevTools' CSS.getPlatformFontsForNode)."""
    session = page.context.new_cdp_session(page)
    try:
        session.send("DOM.enable")
        session.send("CSS.enable")
        root = session.send("DOM.getDocument")["root"]["nodeId"]
        node = session.send("DOM.querySelector", {"nodeId": root, "selector": ".jp-RenderedMarkdown p"})["nodeId"]
        fonts = session.send("CSS.getPlatformFontsForNode", {"nodeId": node})["fonts"]
    finally:
        session.detach()
    return {font["familyName"] for font in fonts if font["glyphCount"] > 0}


def test_no_deck_shows_a_quiz(site):
    decks = [site / deck.language / "slides" / f"{deck.name}.html" for deck in DECKS]
    assert decks and all(path.is_file() for path in decks)
    for path in decks:
        html = path.read_text(encoding="utf-8")
        assert not [text for text in QUIZ_SOURCE if text in html], f"{path.name} shows a quiz's code"


@pytest.mark.parametrize("deck", DECKS, ids=lambda deck: f"{deck.language}-{deck.name}")
def test_every_slide_fits_the_screen_and_reads_as_a_slide(page, site_url, deck):
    page.set_viewport_size(SCREEN)
    response = page.goto(f"{site_url}/{deck.language}/slides/{deck.name}.html", wait_until="load")
    assert response is not None and response.ok
    ready = "() => window.Reveal && Reveal.isReady() && window.MathJax?.startup?.promise"
    page.wait_for_function(ready, timeout=TIMEOUT_MS)
    page.evaluate("async () => { await MathJax.startup.promise; await document.fonts.ready; }")
    page.wait_for_function("() => [...document.images].every(i => i.complete)", timeout=TIMEOUT_MS)
    page.evaluate("() => Reveal.configure({transition: 'none', backgroundTransition: 'none'})")
    titles = slide_titles(deck)
    result = page.evaluate(LAYOUT_SCRIPT, {"titles": titles, "minCodePx": MIN_CODE_PX})

    slides = result["slides"]
    assert len(slides) >= 5, "a deck has a slide per idea of its page"
    problems = [f"slide {s['h']}.{s['v']}: {problem}" for s in slides for problem in s["problems"]]
    assert problems == [], "\n".join(problems)
    assert titles, "the page has section titles with slide marks"
    assert [title for title in titles if title not in result["headings"]] == [], "section titles as slide titles"
    if deck.language == "ko":
        style = page.evaluate(
            "() => { const s = getComputedStyle(document.querySelector('.jp-RenderedMarkdown p'));"
            " return {wordBreak: s.wordBreak, font: s.fontFamily}; }"
        )
        assert style["wordBreak"] == "keep-all"
        assert HANGUL_FONT in style["font"]
        assert HANGUL_FONT in hangul_fonts(page), "the Korean text is set in a font with Hangul"
    assert page.external_requests == [], "requests that left localhost"
    assert page.errors == [], "JavaScript errors"


def test_titles_are_read_from_the_slide_marks():
    titles = slide_titles(Deck("en", "preliminaries", DECKS[0].framework))
    assert "Checking Shapes" in titles and all(not re.search(r"[\[\]*#]", title) for title in titles)
