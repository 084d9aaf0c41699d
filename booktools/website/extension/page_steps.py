"""The rewriting of the built site once Sphinx has written it: an ordered list of named steps.

At ``build-finished`` (after every other handler has written into the site),
:func:`rewrite_site` runs each of :data:`PAGE_STEPS`, in order, over every HTML file
of the site, then each of :data:`SITE_STEPS` over the site's folder. A step does one
thing, is named, and is tested alone (``tests/tooling/test_page_steps.py``); what
each does and why is in the module it comes from.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from sphinx.application import Sphinx
from sphinx.errors import ExtensionError

from booktools.website.extension.code_layout import number_code_lines
from booktools.website.extension.code_markup import plain_code_tokens
from booktools.website.extension.icon_font import subset_icon_fonts
from booktools.website.extension.icons import inline_icons
from booktools.website.extension.image_sizes import size_images
from booktools.website.extension.stylesheets import bundle_site
from booktools.website.extension.tab_stops import focusable_code


@dataclass(frozen=True)
class PageStep:
    """One rewriting of a written page: its HTML and where the page is, to its new HTML."""

    name: str
    does: str  # one line: what the step changes
    apply: Callable[[str, Path], str]  # (html, the page's file) -> html


@dataclass(frozen=True)
class SiteStep:
    """One rewriting of the whole built site, given its folder."""

    name: str
    does: str
    apply: Callable[[Path], None]


def _icons(html: str, page: Path) -> str:
    try:
        return inline_icons(html)
    except KeyError as error:
        raise ExtensionError(f"{page.name}: Font Awesome icon: {error}") from error


def _bundle_stylesheets(outdir: Path) -> None:
    subset_icon_fonts(outdir, bundle_site(outdir))


PAGE_STEPS: tuple[PageStep, ...] = (
    PageStep("inline-icons", "Font Awesome's <i> icons become inline SVG (icons)", _icons),
    PageStep(
        "plain-code-tokens",
        "code spans drawn as plain text lose their span (code_markup)",
        lambda html, page: plain_code_tokens(html),
    ),
    PageStep(
        "size-images",
        "every image gets its width and height (image_sizes)",
        lambda html, page: size_images(html, page.parent),
    ),
    PageStep(
        "focusable-code",
        'every <pre> gets tabindex="0" until checked (tab_stops)',
        lambda html, page: focusable_code(html),
    ),
    PageStep(
        "number-code-lines",
        "every <pre> holds its line count for lazy layout (code_layout)",
        lambda html, page: number_code_lines(html),
    ),
)
SITE_STEPS: tuple[SiteStep, ...] = (
    SiteStep(
        "bundle-stylesheets",
        "one stylesheet without unused rules; icon fonts cut to their glyphs (stylesheets, icon_font)",
        _bundle_stylesheets,
    ),
)


def rewrite_page(html: str, page: Path, steps: tuple[PageStep, ...] = PAGE_STEPS) -> str:
    """Return ``html`` (the page written at ``page``) after each of ``steps``, in order."""
    for step in steps:
        html = step.apply(html, page)
    return html


def rewrite_site(app: Sphinx, exception: Exception | None) -> None:
    """Run :data:`PAGE_STEPS` over every HTML file of the built site, then :data:`SITE_STEPS`."""
    if exception is not None or app.builder.format != "html":
        return
    outdir = Path(app.outdir)
    for page in outdir.rglob("*.html"):
        text = page.read_text(encoding="utf-8")
        changed = rewrite_page(text, page)
        if changed != text:
            page.write_text(changed, encoding="utf-8")
    for step in SITE_STEPS:
        step.apply(outdir)


def setup_page_steps(app: Sphinx) -> None:
    """Run the steps at the end of the build."""
    # After every other handler has written into the site (pydata-sphinx-theme its pygments.css, Thebe).
    app.connect("build-finished", rewrite_site, priority=900)
