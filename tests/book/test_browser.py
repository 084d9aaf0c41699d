"""Each edition's chapter page in headless Chromium, as a reader uses it.

Per edition: every equation typeset at build time and shown in KaTeX's fonts, every heatmap loaded, the language
switcher leading to the same page in the other editions, the framework tabs
switching every code group together and remembered across pages and editions, the
Colab button opening this edition's notebook of the chosen framework, the search
page finding words of the chapter, and the exercise solutions collapsed until a
click opens them. No request may leave the local site. Screenshots go to
``_build/screenshots/``.
"""

from __future__ import annotations

import re
from urllib.parse import urlparse

import pytest
import yaml

from booktools.configuration.config_file import configured_editions
from booktools.project import Project
from booktools.sources.frameworks import FRAMEWORKS

PROJECT = Project.here()
CONFIG = yaml.safe_load(PROJECT.config_file.read_text(encoding="utf-8"))
EDITIONS = [edition.code for edition in configured_editions(PROJECT.config())]
CHAPTER = "attention-scoring-functions"
GLOSSARY = PROJECT.glossary_file
GLOSSARY_CONCEPTS = ("attention", "key", "value")
LETTERS = re.compile(r"[^\W\d_]{2,}")
TIMEOUT_MS = 20_000
TAB_STORAGE_KEY = "sphinx-design-tab-id-framework"


def chapter_url(site_url: str, code: str) -> str:
    return f"{site_url}/{code}/{CHAPTER}.html"


def open_chapter(page, site_url: str, code: str, built_editions: list[str]) -> None:
    """Load the chapter page of ``code`` and wait until its fonts are loaded."""
    if code not in built_editions:
        pytest.fail(f"the {code} edition was not built")
    response = page.goto(chapter_url(site_url, code), wait_until="load")
    assert response is not None and response.ok
    page.evaluate("async () => { await document.fonts.ready; }")


def assert_offline(page) -> None:
    assert page.external_requests == [], "requests that left the site"
    assert page.errors == [], "JavaScript errors"


def search_words(page, code: str) -> list[str]:
    """Words of the chapter to search for: the title's first word, and the words the
    glossary gives the edition for attention, key and value (in Korean, short nouns
    that the text mostly carries with a particle attached: 키와, 값을)."""
    title = page.locator("main h1").first.inner_text()
    words = [LETTERS.findall(title)[0]]
    glossary = yaml.safe_load(GLOSSARY.read_text(encoding="utf-8"))["concepts"] if GLOSSARY.exists() else {}
    for concept in GLOSSARY_CONCEPTS:
        term = concept if code == "en" else glossary.get(concept, {}).get(code, {}).get("term")
        if term and term.split()[0].lower() not in (word.lower() for word in words):
            words.append(term.split()[0])
    return words


@pytest.mark.parametrize("code", EDITIONS)
def test_every_equation_is_typeset(page, site_url, built_editions, screenshots, code):
    open_chapter(page, site_url, code, built_editions)
    math = page.locator(".math").count()
    typeset = page.locator(".math .katex").count()
    assert math > 0, "the chapter has equations"
    assert typeset == math, f"{typeset} typeset of {math} equations"
    # KaTeX's fonts (TeX's) come from the site, each preloaded: font-display is optional, so a
    # font asked for only once the page is laid out would miss it. No math script is on the page.
    fonts = page.evaluate("() => [...document.fonts].filter(face => face.status === 'loaded').map(face => face.family)")
    assert {"KaTeX_Main", "KaTeX_Math"} <= set(fonts), fonts
    fetched = page.evaluate(
        "() => performance.getEntriesByType('resource').map(entry => entry.name).filter(url => url.endsWith('.woff2'))"
    )
    preloaded = page.evaluate(
        "() => [...document.querySelectorAll('link[rel=preload][as=font]')].map(link => link.href)"
    )
    katex_fonts = {url for url in fetched if "/katex/" in url}
    assert katex_fonts and katex_fonts <= set(preloaded), sorted(katex_fonts - set(preloaded))
    assert page.evaluate("() => window.MathJax === undefined && window.katex === undefined")
    text = page.locator("main").inner_text()
    for raw in ("$$", "\\[", "\\(", "\\begin{"):
        assert raw not in text, f"raw TeX {raw!r} left in the page"
    page.screenshot(path=str(screenshots / f"{code}-chapter.png"), full_page=True)
    assert_offline(page)


@pytest.mark.parametrize("code", EDITIONS)
def test_every_heatmap_and_figure_is_shown(page, site_url, built_editions, load_shown_images, code):
    open_chapter(page, site_url, code, built_editions)
    heatmaps = page.locator(".cell_output img")
    assert heatmaps.count() >= 2, "the chapter draws its attention weights as heatmaps"
    widths = load_shown_images(page)
    assert len(widths) >= 2 and all(width > 0 for _, width in widths), widths
    assert_offline(page)


@pytest.mark.parametrize("code", ["en"])
def test_copy_buttons_come_with_the_readers_first_move(page, site_url, built_editions, code):
    open_chapter(page, site_url, code, built_editions)
    assert page.locator("button.copybtn").count() == 0, "the copy buttons' scripts loaded with the page"
    blocks = page.locator("div.highlight pre").count()
    assert blocks > 10, "the chapter's code blocks"
    page.locator("main div.highlight").first.hover()
    page.wait_for_function(
        "count => document.querySelectorAll('button.copybtn').length === count", arg=blocks, timeout=TIMEOUT_MS
    )
    assert_offline(page)


@pytest.mark.parametrize("code", EDITIONS)
def test_the_language_switcher_leads_to_the_same_page_in_every_edition(page, site_url, built_editions, code):
    open_chapter(page, site_url, code, built_editions)
    links = page.eval_on_selector_all("a.edition-link", "links => links.map(link => [link.dataset.edition, link.href])")
    assert sorted(edition for edition, _ in links) == sorted(built_editions)
    for edition, href in links:
        assert href == chapter_url(site_url, edition)
        response = page.request.get(href)
        assert response.ok, href
        assert f'<html lang="{edition}"' in response.text()
    other = next(edition for edition in built_editions if edition != code)
    page.locator(".edition-switcher button").hover()
    page.locator(f'a.edition-link[data-edition="{other}"]').click()
    page.wait_for_url(chapter_url(site_url, other))
    assert page.locator("html").get_attribute("lang") == other
    assert_offline(page)


def colab_links(page) -> list[str]:
    return page.eval_on_selector_all("a[href*='colab.research.google.com']", "links => links.map(link => link.href)")


def expected_colab(code: str, framework: str) -> str:
    repository = CONFIG["repository"]
    owner_repo = urlparse(repository["url"]).path.strip("/")
    book = (repository.get("path_to_book") or "").strip("/")
    notebook = "/".join(part for part in (book, "notebooks", code, framework, f"{CHAPTER}.ipynb") if part)
    assert (PROJECT.root / notebook).exists(), notebook
    return (
        f"{CONFIG['launch_buttons']['colab_url'].rstrip('/')}/github/{owner_repo}"
        f"/blob/{repository['branch']}/{notebook}"
    )


def selected_frameworks(page) -> list[str]:
    """The framework shown by each tab set of the page."""
    return page.eval_on_selector_all(
        ".d2l-framework-tabs",
        """sets => sets.map(set => {
            const input = [...set.querySelectorAll(':scope > input')].find(i => i.checked);
            return input ? input.nextElementSibling.dataset.syncId : null;
        })""",
    )


@pytest.mark.parametrize("code", EDITIONS)
def test_the_colab_button_opens_the_chosen_frameworks_notebook(page, site_url, built_editions, fresh_storage, code):
    open_chapter(page, site_url, code, built_editions)
    assert colab_links(page) == [expected_colab(code, "pytorch")], "PyTorch is the default framework"
    page.locator('.d2l-framework-tabs label[data-sync-id="tensorflow"]').first.click()
    page.wait_for_function(
        "url => [...document.querySelectorAll(\"a[href*='colab']\")].every(a => a.href === url)",
        arg=expected_colab(code, "tensorflow"),
        timeout=TIMEOUT_MS,
    )
    assert "D2L_LIB_SOURCE" not in page.content(), "the install cell belongs to the derived notebooks only"
    assert_offline(page)


@pytest.mark.parametrize("code", EDITIONS)
def test_framework_tabs_switch_every_group_and_are_remembered(
    page, site_url, built_editions, screenshots, fresh_storage, load_shown_images, code
):
    open_chapter(page, site_url, code, built_editions)
    groups = page.locator(".d2l-framework-tabs")
    assert groups.count() >= 10, "every code group of the chapter is a tab set"
    labels = groups.first.locator(":scope > label").all_inner_texts()
    assert [label.strip() for label in labels] == [framework.label for framework in FRAMEWORKS]
    assert set(selected_frameworks(page)) == {"pytorch"}

    page.locator('.d2l-framework-tabs label[data-sync-id="jax"]').first.click()
    assert set(selected_frameworks(page)) == {"jax"}, "choosing JAX once switches every group"
    visible_code = page.locator(".d2l-framework-tabs .sd-tab-content:visible .cell_input")
    assert visible_code.count() >= 10
    assert "import jax" in page.locator(".d2l-framework-tabs .sd-tab-content:visible").first.inner_text()
    assert "torch" not in " ".join(visible_code.all_inner_texts()), "PyTorch code shown under the JAX tab"
    load_shown_images(page)
    # The images the reader sees (those of a folded solution load when it is opened: the next test).
    images = page.eval_on_selector_all(
        ".d2l-framework-tabs .sd-tab-content img",
        "imgs => imgs.filter(i => i.checkVisibility()).map(i => i.naturalWidth)",
    )
    assert len(images) >= 2 and all(width > 0 for width in images), "JAX heatmaps are shown and loaded"
    page.screenshot(path=str(screenshots / f"{code}-jax-tabs.png"), full_page=True)

    page.goto(f"{site_url}/{code}/preliminaries.html", wait_until="load")
    assert set(selected_frameworks(page)) == {"jax"}, "the choice holds on the next page"
    other = next(edition for edition in built_editions if edition != code)
    page.goto(chapter_url(site_url, other), wait_until="load")
    assert set(selected_frameworks(page)) == {"jax"}, "the choice holds in another edition"
    assert_offline(page)


def test_framework_tabs_work_with_the_keyboard(page, site_url, built_editions, fresh_storage):
    open_chapter(page, site_url, "en", built_editions)
    first = page.locator(".d2l-framework-tabs").first
    first.locator("input").first.focus()
    page.keyboard.press("ArrowRight")
    assert set(selected_frameworks(page)) == {"jax"}, "an arrow key moves to the next framework, in every group"
    page.keyboard.press("ArrowRight")
    assert set(selected_frameworks(page)) == {"tensorflow"}
    assert_offline(page)


@pytest.mark.parametrize("code", EDITIONS)
def test_search_finds_words_of_the_chapter(page, site_url, built_editions, screenshots, code):
    open_chapter(page, site_url, code, built_editions)
    words = search_words(page, code)
    placeholder = page.locator("input[name=q]").first.get_attribute("placeholder")
    for word in words:
        page.goto(f"{site_url}/{code}/search.html", wait_until="load")
        box = page.locator("input[name=q]:visible").first
        box.fill(word)
        box.press("Enter")
        hit = page.locator(f"#search-results a[href*='{CHAPTER}']").first
        hit.wait_for(timeout=TIMEOUT_MS)
        assert hit.is_visible(), f"searching {word!r} did not find the chapter"
    page.screenshot(path=str(screenshots / f"{code}-search.png"), full_page=True)
    if code != "en":
        assert placeholder != "Search...", "the search box text is not translated"
    assert_offline(page)


def test_the_landing_page_links_every_edition(page, site_url, built_editions, screenshots):
    response = page.goto(f"{site_url}/index.html", wait_until="load")
    assert response is not None and response.ok
    links = page.eval_on_selector_all("a.edition", "links => links.map(link => [link.lang, link.href])")
    assert [code for code, _ in links] == built_editions
    for _, href in links:
        assert page.request.get(href).ok, href
    page.screenshot(path=str(screenshots / "landing.png"), full_page=True)
    assert_offline(page)


EXERCISES = 4  # the lesson's code and discussion exercises, each with a collapsed solution


@pytest.mark.parametrize("code", EDITIONS)
def test_solutions_are_collapsed_until_clicked(page, site_url, built_editions, screenshots, load_shown_images, code):
    # sphinx-exercise: numbered, labelled exercises; each solution one collapsed block that
    # holds its prose and its code cells (with their outputs), titled in the edition's language.
    open_chapter(page, site_url, code, built_editions)
    exercises = page.locator("div.exercise")
    assert exercises.count() == EXERCISES, "four numbered exercises"
    solutions = page.locator("div.solution.dropdown")
    assert solutions.count() == EXERCISES, "one collapsed solution per exercise"
    titles = [solutions.nth(i).locator(".admonition-title").inner_text() for i in range(EXERCISES)]
    assert all(re.search(r"\d\.\d", title) for title in titles), f"solutions name their exercise: {titles}"
    if code != "en":
        assert not any("Solution" in title for title in titles), f"untranslated solution titles: {titles}"
        assert "Exercise" not in exercises.first.inner_text(), "untranslated exercise label"
    for index in range(EXERCISES):
        solution = solutions.nth(index)
        cells = solution.locator(".cell")
        assert cells.count() >= 1, f"solution {index + 1} holds its code cells"
        assert solution.locator(".cell_output").count() >= 1, f"solution {index + 1} holds its outputs"
        assert not cells.first.is_visible(), "a solution's code is shown before the reader asks for it"
    assert page.locator(".cell.tag_hide-cell").count() == 0, "no separate code toggles below the solutions"
    first = solutions.first
    explanation = first.locator(".admonition-title ~ *").first
    assert not explanation.is_visible(), "a solution is shown before the reader asks for it"
    first.locator(".admonition-title").click()
    explanation.wait_for(state="visible", timeout=TIMEOUT_MS)
    first.locator(".cell .cell_input").first.wait_for(state="visible", timeout=TIMEOUT_MS)
    page.screenshot(path=str(screenshots / f"{code}-solution-open.png"))
    # A folded solution's heatmaps are not fetched nor laid out; opened, they load and show.
    with_images = solutions.filter(has=page.locator("img")).first
    with_images.locator(".admonition-title").click()
    with_images.locator(".cell_output img").first.wait_for(state="visible", timeout=TIMEOUT_MS)
    load_shown_images(page)
    shown = with_images.evaluate(
        "box => [...box.querySelectorAll('img')].filter(i => i.checkVisibility()).map(i => i.naturalWidth)"
    )
    assert shown and all(width > 0 for width in shown), "an opened solution's heatmap is shown"
    assert_offline(page)


def test_solutions_are_folded_before_the_script_and_open_without_javascript(browser, site_url, built_editions):
    # The stylesheet folds a solution from the first paint, before sphinx-togglebutton's deferred
    # script takes it over (shown here by blocking that script); without JavaScript the solutions,
    # which then have no button, are open.
    url = chapter_url(site_url, "en")
    explanation = "div.solution.dropdown .admonition-title ~ *"
    folded = browser.new_page()
    try:
        folded.route("**/togglebutton.js*", lambda route: route.abort())
        folded.goto(url, wait_until="load")
        assert folded.locator("div.solution.dropdown").count() == EXERCISES
        assert folded.locator("div.solution.dropdown.toggle").count() == 0, "the script did not run"
        assert not folded.locator(explanation).first.is_visible(), "a solution is laid out before it is asked for"
    finally:
        folded.close()
    plain = browser.new_page()
    try:
        # DevTools' "Disable JavaScript": the page is parsed as without scripting (<noscript> applies).
        browser.new_cdp_session(plain).send("Emulation.setScriptExecutionDisabled", {"value": True})
        plain.goto(url, wait_until="load")
        shown = plain.locator(explanation)
        assert shown.count() >= EXERCISES
        assert all(shown.nth(index).is_visible() for index in range(shown.count())), "a solution is hidden for good"
    finally:
        plain.close()


# Every code block's content is laid out when the reader comes near it (static/book.css,
# booktools.website.extension.code_layout): the browser tells each change with a
# contentvisibilityautostatechange event, which this records from the start.
RECORD_LAYOUT_STATES = (
    "window.bookSkipped = new Map(); document.addEventListener("
    "'contentvisibilityautostatechange', event => window.bookSkipped.set(event.target, event.skipped), true);"
)
# Scroll to each code block shown, a frame at a time: per block, whether its content was laid out
# at load, its height then and once laid out, its tab stop, and whether it scrolls.
SCROLL_THROUGH_CODE = """async () => {
    const frame = () => new Promise(resolve => requestAnimationFrame(() => requestAnimationFrame(resolve)));
    const blocks = [...document.querySelectorAll("main pre")].filter(block => block.checkVisibility());
    const atLoad = blocks.map(block => [window.bookSkipped.get(block), block.getBoundingClientRect().height]);
    const seen = [];
    for (const [i, block] of blocks.entries()) {
        block.scrollIntoView();
        await frame();
        seen.push({
            lines: block.style.getPropertyValue("--lines"), skippedAtLoad: atLoad[i][0], before: atLoad[i][1],
            after: block.getBoundingClientRect().height, skipped: window.bookSkipped.get(block),
            tabIndex: block.tabIndex,
            scrolls: block.scrollWidth > block.clientWidth || block.scrollHeight > block.clientHeight,
        });
    }
    return seen;
}"""


# The tab stop of each code block laid out now, and whether it scrolls.
LAID_OUT_TAB_STOPS = """() => [...document.querySelectorAll("main pre")]
    .filter(block => window.bookSkipped.get(block) === false)
    .map(block => [block.tabIndex, block.scrollWidth > block.clientWidth || block.scrollHeight > block.clientHeight])"""


@pytest.mark.parametrize("code", EDITIONS)
def test_code_blocks_are_laid_out_when_reached_without_moving_the_page(page, site_url, built_editions, code):
    """On a phone, the code blocks below the first screens wait to be laid out; reached, each keeps the height it
    held, and has a tab stop exactly when it scrolls (so that a keyboard can scroll it), also after a turn."""
    if code not in built_editions:
        pytest.fail(f"the {code} edition was not built")
    page.set_viewport_size({"width": 412, "height": 823})
    page.add_init_script(RECORD_LAYOUT_STATES)
    response = page.goto(f"{site_url}/{code}/attention-scoring-in-practice.html", wait_until="load")
    assert response is not None and response.ok
    page.evaluate("async () => { await document.fonts.ready; }")
    blocks = page.evaluate(SCROLL_THROUGH_CODE)
    assert len(blocks) >= 20, "the code blocks of the framework shown"
    assert all(block["skippedAtLoad"] is not None for block in blocks), "a code block laid out with the page"
    assert sum(block["skippedAtLoad"] for block in blocks) >= len(blocks) // 2, "most blocks wait to be reached"
    for block in blocks:
        assert block["skipped"] is False, block
        assert abs(block["after"] - block["before"]) <= 1, f"a block's height changed when laid out: {block}"
        assert block["tabIndex"] == (0 if block["scrolls"] else -1), f"a block's tab stop: {block}"
    # Turned to landscape at a block that scrolls on the phone: the blocks laid out now, some wide enough
    # not to scroll any more, have their tab stops for the new width.
    scrolling = next(i for i, block in enumerate(blocks) if block["scrolls"])
    to_block = (
        "() => [...document.querySelectorAll('main pre')].filter(b => b.checkVisibility())"
        f"[{scrolling}].scrollIntoView()"
    )
    page.evaluate(to_block)
    page.set_viewport_size({"width": 915, "height": 412})
    page.evaluate(to_block)
    page.evaluate("() => new Promise(resolve => requestAnimationFrame(() => requestAnimationFrame(resolve)))")
    turned = page.evaluate(LAID_OUT_TAB_STOPS)
    assert turned, "no code block laid out after the turn"
    assert all(tab_index == (0 if scrolls else -1) for tab_index, scrolls in turned), turned
    assert_offline(page)
