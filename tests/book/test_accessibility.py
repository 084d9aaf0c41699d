"""Every page of the built site, checked for accessibility in headless Chromium.

- **axe-core** (npm ``axe-core``, pinned by ``tests/book/axe/package-lock.json``,
  installed by ``make test-setup`` into ``.venv/share/d2l-book/axe/`` and injected into
  each page from disk, so nothing is fetched at test time) audits every HTML page
  the build wrote under ``_build/html`` (the landing page, and each edition's
  pages, whatever they are: a page added to the book, the slides or the API
  reference is audited without a change here): every rule in the theme's light
  mode, then the colour rules again in its dark mode. Any violation of an impact
  in ``booktools.configuration.bars.AXE_BLOCKING_IMPACTS`` fails the test, which prints each one: rule, page, element. A
  self-check shows that an ``<img>`` without alt text fails.
- **Keyboard**: the language switcher, the framework tabs, the solution blocks and
  collapsed code cells, and the article header's buttons (the Colab link in the
  launch menu, Live code, ...) are reached with Tab, used with Enter and the arrow
  keys, and show a focus ring (an outline or a box-shadow under ``:focus-visible``).
- **Dark mode and phones**: in dark mode every figure and heatmap keeps its
  contrast (its text and lines against its own, light, background), and at 390
  pixels wide no page scrolls sideways (code blocks and equations scroll inside
  themselves). Screenshots of each edition's chapter, light and dark, desktop and
  phone, go to ``_build/screenshots/a11y-<code>-<mode>-<width>.png``.
"""

from __future__ import annotations

import io
import json
import os
import re
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

from booktools.configuration.bars import AXE_BLOCKING_IMPACTS
from booktools.configuration.config_file import configured_editions
from booktools.programs import npm_prefix
from booktools.project import Project

PROJECT = Project.here()
EDITIONS = [edition.code for edition in configured_editions(PROJECT.config())]
CHAPTER = "attention-scoring-functions"
PRACTICE = "attention-scoring-in-practice"
MODES = ("light", "dark")
BLOCKING = AXE_BLOCKING_IMPACTS
TIMEOUT_MS = 20_000
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}
# The pinned axe-core and where `make test-setup` installs it (npm ci --prefix AXE_DIR).
AXE_LOCK = PROJECT.root / "tests" / "book" / "axe" / "package-lock.json"
AXE_DIR = Path(os.environ.get("BOOK_AXE_DIR", npm_prefix("axe")))
AXE_PACKAGE = AXE_DIR / "node_modules" / "axe-core"
# WCAG's minimum contrast for text (1.4.3), asked of a figure's darkest or lightest
# marks (axis labels, lines) against its own background.
MIN_CONTRAST = 4.5
MAX_TABS = 400  # Tab presses allowed to reach a control (the chapter has many equations, each a stop)
# The theme's colour mode: pydata-sphinx-theme reads it from local storage before drawing the page.
SET_MODE = "mode => { localStorage.setItem('mode', mode); localStorage.setItem('theme', mode); }"


def in_ci() -> bool:
    return os.environ.get("CI", "").lower() in {"1", "true", "yes"}


@pytest.fixture(scope="session")
def axe_script() -> Path:
    """The pinned axe-core script, installed by ``make test-setup``."""
    script = AXE_PACKAGE / "axe.min.js"
    if not script.is_file():
        reason = f"axe-core is not installed at {AXE_DIR} (make test-setup runs npm ci for tests/book/axe)"
        if in_ci():
            pytest.fail(f"{reason} (CI=true: the book tests must run)")
        pytest.skip(reason)
    return script


def pinned_axe_version() -> str:
    return json.loads(AXE_LOCK.read_text(encoding="utf-8"))["packages"]["node_modules/axe-core"]["version"]


class _Links(HTMLParser):
    """The targets of the ``<a href>`` of a page."""

    def __init__(self) -> None:
        super().__init__()
        self.hrefs: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        href = dict(attrs).get("href")
        if tag == "a" and href:
            self.hrefs.append(href)


def site_pages(site: Path, folder: str) -> list[str]:
    """The pages of ``site/folder`` a reader reaches, as paths from ``site``.

    Sphinx writes an edition's pages into its folder (chapters, index, search, the
    API reference...); a page in a subfolder counts when one of them or the landing
    page links it (the slides), so that files a library ships (reveal.js's speaker view) and Sphinx's
    own folders (``_static``, ``_sources``) are not taken for pages of the book.
    """
    base = (site / folder).resolve()
    queue = sorted(base.glob("*.html"))
    found = set(queue)
    queue.append((site / "index.html").resolve())  # the landing page links into each edition (its slides)
    while queue:
        page = queue.pop()
        links = _Links()
        links.feed(page.read_text(encoding="utf-8", errors="replace"))
        for href in links.hrefs:
            parts = urlsplit(href)
            if parts.scheme or parts.netloc or not parts.path.endswith(".html"):
                continue
            target = (page.parent / unquote(parts.path)).resolve()
            inside = target.is_relative_to(base) and not any(
                part.startswith("_") for part in target.relative_to(base).parts
            )
            if inside and target.is_file() and target not in found:
                found.add(target)
                queue.append(target)
    return sorted(path.relative_to(site.resolve()).as_posix() for path in found)


def settle(page) -> None:
    """Wait until the page's fonts are loaded (its math is typeset at build time)."""
    page.evaluate("async () => { await document.fonts.ready; }")


def open_page(page, url: str, mode: str = "light") -> None:
    """Load ``url`` in the theme's ``mode`` (and the browser's colour scheme, for the landing page)."""
    page.emulate_media(color_scheme=mode)
    page.add_init_script(f"({SET_MODE})({json.dumps(mode)})")
    response = page.goto(url, wait_until="load")
    assert response is not None and response.ok, url
    settle(page)


# The theme fades colours in (transition: color .25s, ...); a check must see the colours of the mode.
NO_TRANSITIONS = "*, *::before, *::after { transition: none !important; animation: none !important; }"


def switch_mode(page, mode: str) -> None:
    """Switch the loaded page to the theme's ``mode``, as its colour-mode button does, at once."""
    if not page.evaluate("() => !!document.getElementById('a11y-no-transitions')"):
        page.add_style_tag(content=NO_TRANSITIONS).evaluate("style => { style.id = 'a11y-no-transitions'; }")
    page.emulate_media(color_scheme=mode)
    page.evaluate(
        "m => { document.documentElement.dataset.mode = m; document.documentElement.dataset.theme = m; }",
        mode,
    )
    page.evaluate("() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))")


@pytest.fixture
def forget_mode(page, site_url):
    """Put the colour mode back to the theme's default for later tests (the browser profile lasts the session)."""
    yield
    page.goto(f"{site_url}/index.html", wait_until="load")
    page.evaluate("() => { localStorage.removeItem('mode'); localStorage.removeItem('theme'); }")


def run_axe(page, axe_script: Path, rules: tuple[str, ...] = ()) -> list[dict]:
    """Run axe-core (every rule, or only ``rules``) on the loaded page; return its violations."""
    if not page.evaluate("() => typeof window.axe === 'object'"):
        page.add_script_tag(path=str(axe_script))
    options = {
        "resultTypes": ["violations"],
        **({"runOnly": list(rules)} if rules else {}),
    }
    return page.evaluate("async options => (await axe.run(document, options)).violations", options)


def blocking(violations: list[dict], where: str) -> list[str]:
    """One line per element of each serious or critical violation: rule, impact, page, element."""
    lines = []
    for violation in violations:
        if violation["impact"] not in BLOCKING:
            continue
        for node in violation["nodes"]:
            target = " ".join(str(part) for part in node["target"])
            html = " ".join(node["html"].split())[:160]
            lines.append(
                f"{violation['id']} ({violation['impact']}) on {where}: {target}\n"
                f"    {html}\n    {violation['help']} ({violation['helpUrl']})"
            )
    return lines


# What changes with the colour mode: colours. The other rules are checked in light mode.
DARK_RULES = ("color-contrast", "link-in-text-block")


def open_deck(page, url: str) -> None:
    """Load a reveal.js deck with every slide shown: its print layout, with no slide hidden from assistive technology.

    A deck shows one slide at a time and hides the others; laid out for print,
    all are shown at once, so that one audit reads every slide as a reader sees it.
    """
    response = page.goto(f"{url}?print-pdf", wait_until="load")
    assert response is not None and response.ok, url
    page.wait_for_function(
        """() => window.Reveal && Reveal.isReady && Reveal.isReady()
                 && document.querySelectorAll('.reveal .pdf-page').length >= Reveal.getTotalSlides()""",
        timeout=TIMEOUT_MS,
    )
    settle(page)
    # reveal.js hides the slides far from the current one again whenever it lays the deck out: undo it each time.
    page.evaluate(
        """() => {
            const unhide = section => { section.removeAttribute('hidden'); section.removeAttribute('aria-hidden'); };
            const slides = document.querySelector('.reveal .slides');
            new MutationObserver(() => slides.querySelectorAll('section[hidden], section[aria-hidden]').forEach(unhide))
                .observe(slides, {subtree: true, childList: true, attributes: true,
                                  attributeFilter: ['hidden', 'aria-hidden']});
            Reveal.configure({viewDistance: 1000, mobileViewDistance: 1000});
            slides.querySelectorAll('section').forEach(unhide);
        }"""
    )


def is_deck(path: Path) -> bool:
    """Whether the page at ``path`` is a reveal.js deck (the slides)."""
    return 'class="reveal"' in path.read_text(encoding="utf-8", errors="replace")


def audit(page, site: Path, site_url: str, pages: list[str], axe_script: Path) -> list[str]:
    """Every rule in light mode, then the colour rules in dark mode, on each of ``pages`` (a deck: every slide)."""
    problems = []
    for rel in pages:
        if is_deck(site / rel):
            open_deck(page, f"{site_url}/{rel}")
            problems += blocking(run_axe(page, axe_script), f"{rel} [every slide]")
            continue
        open_page(page, f"{site_url}/{rel}", "light")
        problems += blocking(run_axe(page, axe_script), f"{rel} [light]")
        switch_mode(page, "dark")
        problems += blocking(run_axe(page, axe_script, DARK_RULES), f"{rel} [dark]")
    return problems


def assert_offline(page) -> None:
    assert page.external_requests == [], "requests that left the site"
    assert page.errors == [], "JavaScript errors"


# --- axe-core ---------------------------------------------------------------------------------


def test_axe_core_is_the_pinned_version(axe_script):
    installed = json.loads((AXE_PACKAGE / "package.json").read_text(encoding="utf-8"))["version"]
    assert installed == pinned_axe_version(), f"stale axe-core in {AXE_DIR}: run make test-setup"


def test_axe_reports_an_image_without_alt_text(page, axe_script):
    """The check can fail: an ``<img>`` without alt text is a critical violation."""
    page.set_content(
        '<!DOCTYPE html><html lang="en"><head><title>t</title></head><body><main><h1>t</h1>'
        '<img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" width="10" height="10"></main></body></html>'
    )
    problems = blocking(run_axe(page, axe_script), "a page with an image without alt text")
    assert problems and problems[0].startswith("image-alt (critical)"), problems
    assert page.evaluate("() => axe.version") == pinned_axe_version()


@pytest.mark.parametrize("code", EDITIONS)
def test_every_page_of_the_edition_passes_axe(page, site, site_url, built_editions, axe_script, forget_mode, code):
    if code not in built_editions:
        pytest.fail(f"the {code} edition was not built")
    pages = site_pages(site, code)
    assert f"{code}/index.html" in pages and f"{code}/{CHAPTER}.html" in pages, pages
    problems = audit(page, site, site_url, pages, axe_script)
    assert not problems, f"{len(problems)} serious or critical axe-core violations:\n" + "\n".join(problems)
    assert_offline(page)


def test_the_landing_page_passes_axe(page, site, site_url, axe_script, forget_mode):
    problems = audit(page, site, site_url, ["index.html"], axe_script)
    assert not problems, f"{len(problems)} serious or critical axe-core violations:\n" + "\n".join(problems)
    assert_offline(page)


class _Images(HTMLParser):
    """The ``src`` and ``alt`` of every ``<img>`` of a page."""

    def __init__(self) -> None:
        super().__init__()
        self.images: list[tuple[str, str | None]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "img":
            found = dict(attrs)
            self.images.append((found.get("src") or "", found.get("alt")))


def says_nothing(src: str, alt: str | None) -> bool:
    """Whether an alt text is missing, empty, or only the file's name (myst-nb's default for an output)."""
    return not alt or not alt.strip() or alt == src or alt.lower().endswith(IMAGE_SUFFIXES)


IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".gif", ".svg", ".webp")


@pytest.mark.parametrize("code", EDITIONS)
def test_every_image_says_what_it_shows(site, built_editions, code):
    if code not in built_editions:
        pytest.fail(f"the {code} edition was not built")
    silent = []
    for rel in site_pages(site, code):
        parser = _Images()
        parser.feed((site / rel).read_text(encoding="utf-8"))
        silent += [(rel, src, alt) for src, alt in parser.images if says_nothing(src, alt)]
    # Notebook outputs (the heatmaps) get theirs from the description show_heatmaps attaches
    # (booktools.website.heatmap_alt_text); figures of the prose from their markdown.
    assert not silent, "images without a text alternative that says what they show:\n" + "\n".join(
        f"{rel}: {src} (alt {alt!r})" for rel, src, alt in silent
    )


# --- keyboard ---------------------------------------------------------------------------------

# The element that shows the focus: a framework tab's radio input is invisible, its label shows it.
RING = """() => {
    const el = document.activeElement;
    const shown = el.matches('.sd-tab-set > input') ? el.nextElementSibling : el;
    const style = getComputedStyle(shown);
    return {focusVisible: el.matches(':focus-visible'), outlineStyle: style.outlineStyle,
            outlineWidth: parseFloat(style.outlineWidth) || 0, outlineColor: style.outlineColor,
            boxShadow: style.boxShadow, name: el.outerHTML.slice(0, 120)};
}"""
SHADOW = re.compile(r"rgba?\(([^)]*)\)\s+(-?[\d.]+)px\s+(-?[\d.]+)px\s+([\d.]+)px\s+(-?[\d.]+)px")


def opaque(color: str) -> bool:
    parts = [float(part) for part in re.findall(r"[\d.]+", color)]
    return len(parts) >= 3 and (len(parts) == 3 or parts[3] > 0)


def has_focus_ring(style: dict) -> bool:
    """Whether the computed style draws a ring: a visible outline, or a box-shadow at least 1 px wide."""
    outline = style["outlineStyle"] not in ("none", "hidden") and style["outlineWidth"] >= 1
    if outline and (style["outlineStyle"] == "auto" or opaque(style["outlineColor"])):
        return True
    for color, _x, _y, blur, spread in SHADOW.findall(style["boxShadow"] or ""):
        if opaque(f"({color})") and max(float(blur), float(spread)) >= 1:
            return True
    return False


def focus_ring(page) -> dict:
    page.wait_for_timeout(300)  # the theme's buttons fade their ring in (transition: box-shadow .15s)
    return page.evaluate(RING)


def assert_focus_ring(page, what: str) -> None:
    style = focus_ring(page)
    assert style["focusVisible"], f"{what}: focused, but not :focus-visible ({style['name']})"
    assert has_focus_ring(style), f"{what}: no visible focus ring: {style}"


def tab_to(page, selector: str, limit: int = MAX_TABS) -> None:
    """Press Tab until the focus is on an element matching ``selector``."""
    visited = []
    for _ in range(limit):
        page.keyboard.press("Tab")
        if page.evaluate(
            "s => !!document.activeElement && document.activeElement.matches(s)",
            selector,
        ):
            return
        visited.append(page.evaluate("() => document.activeElement && document.activeElement.outerHTML.slice(0, 80)"))
    pytest.fail(f"{selector!r} not reached with {limit} Tab presses; the last ones: {visited[-5:]}")


def start_before_section_of(page, selector: str) -> None:
    """Move the sequential-focus starting point to the heading of the section holding the first visible ``selector``.

    As a reader who follows the table of contents there and goes on with Tab.
    """
    found = page.evaluate(
        """selector => {
            const target = [...document.querySelectorAll(selector)].find(element => element.offsetParent !== null);
            if (!target) return false;
            const heading = target.closest('section').querySelector('h1, h2, h3, h4');
            heading.tabIndex = -1;
            heading.focus();
            return true;
        }""",
        selector,
    )
    assert found, f"no visible {selector!r} on the page"


def page_url(site_url: str, code: str, page: str) -> str:
    return f"{site_url}/{code}/{page}.html"


def chapter_url(site_url: str, code: str) -> str:
    return page_url(site_url, code, CHAPTER)


def selected_frameworks(page) -> list[str]:
    return page.eval_on_selector_all(
        ".d2l-framework-tabs",
        """sets => sets.map(set => {
            const input = [...set.querySelectorAll(':scope > input')].find(i => i.checked);
            return input ? input.nextElementSibling.dataset.syncId : null;
        })""",
    )


def test_the_language_switcher_works_with_the_keyboard(page, site_url, built_editions, fresh_storage):
    open_page(page, chapter_url(site_url, "en"))
    tab_to(page, ".edition-switcher button")
    assert_focus_ring(page, "the language switcher")
    page.keyboard.press("Enter")
    page.locator(".edition-switcher .dropdown-menu.show").wait_for(timeout=TIMEOUT_MS)
    other = next(code for code in built_editions if code != "en")
    for _ in range(len(built_editions)):
        page.keyboard.press("ArrowDown")
        if page.evaluate("() => document.activeElement.dataset.edition") == other:
            break
    assert page.evaluate("() => document.activeElement.dataset.edition") == other, "arrow keys move through the menu"
    assert_focus_ring(page, "an edition in the language menu")
    page.keyboard.press("Enter")
    page.wait_for_url(chapter_url(site_url, other))
    assert page.locator("html").get_attribute("lang") == other
    assert_offline(page)


def test_framework_tabs_are_reached_with_tab_and_switched_with_arrows(page, site_url, fresh_storage):
    open_page(page, chapter_url(site_url, "en"))
    tab_to(page, ".d2l-framework-tabs > input")
    assert_focus_ring(page, "a framework tab")
    assert set(selected_frameworks(page)) == {"pytorch"}
    page.keyboard.press("ArrowRight")
    assert set(selected_frameworks(page)) == {"jax"}, "an arrow key chooses the next framework, in every group"
    assert_focus_ring(page, "the framework tab chosen with an arrow key")
    page.keyboard.press("ArrowLeft")
    assert set(selected_frameworks(page)) == {"pytorch"}
    assert_offline(page)


def test_solutions_and_collapsed_cells_open_with_the_keyboard(page, site_url):
    open_page(page, chapter_url(site_url, "en"))
    start_before_section_of(page, ".admonition.dropdown")
    tab_to(page, ".admonition.dropdown button.toggle-button")
    assert_focus_ring(page, "a solution's toggle button")
    solution = page.evaluate_handle("() => document.activeElement.closest('.admonition')").as_element()
    explanation = solution.query_selector(".admonition-title ~ *")
    assert not explanation.is_visible(), "a solution is shown before the reader asks for it"
    page.keyboard.press("Enter")
    explanation.wait_for_element_state("visible", timeout=TIMEOUT_MS)

    open_page(page, page_url(site_url, "en", PRACTICE))  # its library helpers are collapsed cells
    start_before_section_of(page, "details.hide")
    tab_to(page, "details.hide > summary")
    assert_focus_ring(page, "a collapsed code cell's summary")
    details = page.evaluate_handle("() => document.activeElement.closest('details')").as_element()
    assert details.get_attribute("open") is None, "a collapsed cell is shown before the reader asks for it"
    page.keyboard.press("Enter")
    page.wait_for_function("details => details.open", arg=details, timeout=TIMEOUT_MS)
    content = details.query_selector(":scope > :not(summary)")
    assert content is not None and content.is_visible(), "Enter opens the collapsed cell"
    assert_offline(page)


def test_the_slide_links_are_reached_with_tab_and_open_the_deck_with_enter(page, site_url):
    open_page(page, chapter_url(site_url, "en"))
    start_before_section_of(page, ".d2l-slides-link a")
    tab_to(page, ".d2l-slides-link a")
    assert_focus_ring(page, "a link to the slides")
    deck = page.evaluate("() => document.activeElement.href")
    assert deck.endswith(f"/en/slides/{CHAPTER}-pytorch.html"), deck
    page.keyboard.press("Enter")
    page.wait_for_url(deck)
    page.locator(".reveal .slides section").first.wait_for(state="attached", timeout=TIMEOUT_MS)
    assert_offline(page)


# The article header's controls: buttons, links and menu toggles (Colab and other launch
# links sit in the launch menu, which test_the_colab_link_* opens).
HEADER_CONTROLS = ".article-header-buttons :is(a, button):not(.dropdown-menu *), .d2l-live-button"


def test_every_header_button_is_reached_with_tab_and_shows_a_focus_ring(page, site_url):
    open_page(page, chapter_url(site_url, "en"))
    controls = page.eval_on_selector_all(
        HEADER_CONTROLS,
        "els => els.filter(e => e.offsetParent !== null).map((e, i) => { e.dataset.a11yControl = i; return i; })",
    )
    assert len(controls) >= 4, "launch menu, repository, download, colour mode, language..."
    reached: dict[int, dict] = {}
    for _ in range(MAX_TABS):
        page.keyboard.press("Tab")
        index = page.evaluate("() => document.activeElement.dataset.a11yControl")
        if index is not None:
            reached[int(index)] = focus_ring(page)
            if len(reached) == len(controls):
                break
    missing = [
        page.locator(f'[data-a11y-control="{i}"]').evaluate("e => e.outerHTML.slice(0, 120)")
        for i in controls
        if i not in reached
    ]
    assert not missing, f"header controls not reached with Tab: {missing}"
    without_ring = [style["name"] for style in reached.values() if not has_focus_ring(style)]
    assert not without_ring, f"header controls without a visible focus ring: {without_ring}"
    assert_offline(page)


def test_the_colab_link_is_reached_from_the_launch_menu_with_the_keyboard(page, site_url, fresh_storage):
    open_page(page, chapter_url(site_url, "en"))
    tab_to(page, ".dropdown-launch-buttons > button")
    page.keyboard.press("Enter")
    page.locator(".dropdown-launch-buttons .dropdown-menu.show").wait_for(timeout=TIMEOUT_MS)
    page.keyboard.press("ArrowDown")
    href = page.evaluate("() => document.activeElement.href || ''")
    assert "colab.research.google.com" in href and href.endswith(f"/notebooks/en/pytorch/{CHAPTER}.ipynb"), href
    assert_focus_ring(page, "the Colab link")
    page.keyboard.press("Escape")
    assert_offline(page)


# --- dark mode and phones -------------------------------------------------------------------------


def luminance(rgb: tuple[int, ...]) -> float:
    """WCAG relative luminance of an sRGB colour."""
    channels = [value / 255 for value in rgb[:3]]
    linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def figure_contrast(png: bytes) -> tuple[float, float]:
    """The luminance of a figure's background (its commonest colour) and the contrast of its marks against it.

    The marks are the 1% of pixels furthest from the background in luminance: axis
    labels, ticks, lines and the extreme cells of a heatmap.
    """
    import numpy as np
    from PIL import Image

    pixels = np.asarray(Image.open(io.BytesIO(png)).convert("RGB")).reshape(-1, 3)
    colours, counts = np.unique(pixels, axis=0, return_counts=True)
    background = luminance(tuple(int(value) for value in colours[counts.argmax()]))
    channels = pixels / 255
    linear = np.where(channels <= 0.04045, channels / 12.92, ((channels + 0.055) / 1.055) ** 2.4)
    levels = linear @ np.array([0.2126, 0.7152, 0.0722])
    darkest, lightest = np.percentile(levels, 1), np.percentile(levels, 99)
    extreme = darkest if abs(background - darkest) >= abs(lightest - background) else lightest
    low, high = sorted((background, extreme))
    return background, (high + 0.05) / (low + 0.05)


def visible_figures(page) -> list:
    """The images of the article a reader sees (figures and cell outputs, in the tabs shown)."""
    images = page.locator("main article img, main .bd-article img")
    return [images.nth(i) for i in range(images.count()) if images.nth(i).is_visible()]


@pytest.mark.parametrize("code", EDITIONS)
def test_figures_keep_their_contrast_in_both_modes(
    page, site_url, built_editions, screenshots, forget_mode, load_shown_images, code
):
    """Each figure's marks against its background, light and dark; screenshots at desktop and phone width."""
    if code not in built_editions:
        pytest.fail(f"the {code} edition was not built")
    open_page(page, chapter_url(site_url, code))
    load_shown_images(page)
    faint = []
    for mode in MODES:
        switch_mode(page, mode)
        figures = visible_figures(page)
        assert len(figures) >= 3, "the chapter's figure and its heatmaps"
        for figure in figures:
            figure.scroll_into_view_if_needed()
            background, contrast = figure_contrast(figure.screenshot())
            if contrast < MIN_CONTRAST:
                faint.append(
                    f"{figure.get_attribute('src')} [{mode}]: contrast {contrast:.1f} against its "
                    f"background (luminance {background:.2f})"
                )
        for width, viewport in (("desktop", DESKTOP), ("phone", PHONE)):
            page.set_viewport_size(viewport)
            page.evaluate("() => window.scrollTo(0, 0)")
            page.screenshot(
                path=str(screenshots / f"a11y-{code}-{mode}-{width}.png"),
                full_page=True,
            )
        page.set_viewport_size(DESKTOP)
    assert not faint, "figures hard to read:\n" + "\n".join(faint)
    assert_offline(page)


# Elements wider than the viewport that no scrolling container of their own holds.
OVERFLOW = """() => {
    const width = document.documentElement.clientWidth;
    const scrolls = el => { for (let p = el.parentElement; p; p = p.parentElement) {
        if (['auto', 'scroll', 'hidden', 'clip'].includes(getComputedStyle(p).overflowX)) return true; }
        return false; };
    return [...document.body.querySelectorAll('*')]
        .filter(el => { const box = el.getBoundingClientRect(); return box.width > 0 && box.right > width + 1; })
        .filter(el => !scrolls(el))
        .slice(0, 5).map(el => el.outerHTML.slice(0, 120));
}"""


@pytest.mark.parametrize("code", [*EDITIONS, "landing"])
def test_no_page_scrolls_sideways_on_a_phone(page, site, site_url, built_editions, code):
    pages = ["index.html"] if code == "landing" else site_pages(site, code)
    page.set_viewport_size(PHONE)
    wide = []
    for rel in pages:
        open_page(page, f"{site_url}/{rel}")
        scroll, client = page.evaluate(
            "() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]"
        )
        if scroll > client:
            wide.append(f"{rel}: {scroll} px wide in a {client} px viewport, because of {page.evaluate(OVERFLOW)}")
    page.set_viewport_size(DESKTOP)
    assert not wide, "pages that scroll sideways at 390 px:\n" + "\n".join(wide)
    assert_offline(page)
