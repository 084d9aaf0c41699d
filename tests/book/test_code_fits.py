"""No code block or output scrolls sideways on a desktop of 1280 px (``static/book.css``).

Every line of the book's code and outputs is at most 79 characters
(``tests/tooling/test_line_width.py``); at 1280 px wide each ``<pre>`` of every page of
every edition must show such a line whole, in every framework's tab, the folded
solutions opened. Code blocks are laid out only when the reader comes near them
(``content-visibility: auto``, ``booktools.website.extension.code_layout``): the test lays
every one out first, so that its width is measured, not the placeholder's. One browser
tab per edition goes through the edition's pages.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from booktools.configuration.config_file import configured_editions
from booktools.project import Project
from booktools.sources.frameworks import NAMES

PROJECT = Project.here()
EDITIONS = [edition.code for edition in configured_editions(PROJECT.config())]
DESKTOP = {"width": 1280, "height": 900}
# Every code block laid out now, whether or not it is near the viewport.
LAY_OUT_EVERY_BLOCK = "pre { content-visibility: visible !important; }"
# Open every folded solution (sphinx-togglebutton) as a click on its title would.
OPEN_SOLUTIONS = """() => {
    for (const title of document.querySelectorAll('.admonition.dropdown.toggle-hidden > .admonition-title')) {
        title.click();
    }
    return document.querySelectorAll('.admonition.dropdown.toggle-hidden').length;
}"""
# Show ``framework``'s tab in every tab set (sphinx-design syncs them), and say whether it is shown.
SHOW_TAB = """framework => {
    const label = document.querySelector(`.d2l-framework-tabs > label[data-sync-id="${framework}"]`);
    if (label === null) return false;
    label.click();
    return [...document.querySelectorAll('.d2l-framework-tabs')].every(set => {
        const input = [...set.querySelectorAll(':scope > input')].find(i => i.checked);
        return input !== undefined && input.nextElementSibling.dataset.syncId === framework;
    });
}"""
# Every <pre> of the article the reader sees now: whether it is laid out, and by how many pixels it
# is wider than its box, with its first line to name it.
MEASURE_BLOCKS = """() => [...document.querySelectorAll('main pre')]
    .filter(block => block.checkVisibility())
    .map(block => ({
        laidOut: block.checkVisibility({contentVisibilityAuto: true}),
        overflow: block.scrollWidth - block.clientWidth,
        line: block.textContent.trim().split('\\n')[0].slice(0, 60),
        output: block.closest('.cell_output') !== null,
    }))"""


def pages_of(site: Path, code: str) -> list[str]:
    """The HTML pages of one edition (its slides, under ``slides/``, have their own layout test)."""
    return sorted(path.name for path in (site / code).glob("*.html"))


@pytest.mark.parametrize("code", EDITIONS)
def test_no_code_block_scrolls_sideways_at_1280_px(page, site, site_url, built_editions, code):
    if code not in built_editions:
        pytest.fail(f"the {code} edition was not built")
    page.set_viewport_size(DESKTOP)
    measured, scrolling = 0, []
    for name in pages_of(site, code):
        response = page.goto(f"{site_url}/{code}/{name}", wait_until="load")
        assert response is not None and response.ok, name
        page.add_style_tag(content=LAY_OUT_EVERY_BLOCK)
        page.evaluate("async () => { await document.fonts.ready; }")
        assert page.evaluate(OPEN_SOLUTIONS) == 0, f"{name}: a solution stayed folded"
        for framework in NAMES:
            tabbed = page.evaluate(SHOW_TAB, framework)
            if not tabbed and framework != NAMES[0]:
                break  # a page without framework tabs shows one version of its code
            blocks = page.evaluate(MEASURE_BLOCKS)
            assert all(block["laidOut"] for block in blocks), f"{name}: a code block was not laid out"
            measured += len(blocks)
            scrolling += [
                f"{name} [{framework if tabbed else 'no tabs'}] "
                f"{'output' if block['output'] else 'code'} {block['line']!r}: {block['overflow']} px"
                for block in blocks
                if block["overflow"] > 0
            ]
    assert measured > 100, f"only {measured} code blocks measured in the {code} edition"
    assert not scrolling, f"{len(scrolling)} blocks scroll sideways at 1280 px:\n" + "\n".join(scrolling)
    assert page.external_requests == [], "requests that left the site"
    assert page.errors == [], "JavaScript errors"
