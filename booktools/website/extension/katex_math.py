"""Typeset the book's math at build time with KaTeX, so that no math script runs in the browser.

Every formula Sphinx writes into a page (MyST's ``$...$`` and ``$$...$$``, amsmath
environments, ``:math:`` in the API page's docstrings) is rendered during the build by
KaTeX (npm ``katex``, pinned by ``katex/package-lock.json`` and installed by ``make setup``
into ``.venv/share/d2l-book/katex/``), run in Node by sphinxcontrib-katex's render server
(``KaTeXServer``, one Node process per build, started by
``booktools.website.extension.katex_server``). The page holds KaTeX's HTML, set in
KaTeX's TeX fonts, and beside it the formula's MathML, which screen readers read
(KaTeX's ``htmlAndMathml`` output). Numbered equations keep Sphinx's numbers, ids and
permalinks, so ``{eq}`` references work as before.

Only the render server of sphinxcontrib-katex is used, not its Sphinx renderer: in
prerendering mode that renderer turns a TeX error into red text in the page
(``throwOnError`` is fixed to false), adds its stylesheets to every page (KaTeX's from a
CDN unless set otherwise), and places equation numbers in a way that fights
pydata-sphinx-theme's. Here a formula KaTeX cannot typeset, or one that is not valid
LaTeX (KaTeX's ``strict`` mode), is a build warning with the page and line, which
``-W`` makes an error.

After the build KaTeX's stylesheet and its WOFF2 fonts are copied into ``_static/katex/``;
in the copy every font is ``font-display: optional`` (a late font never reflows a page)
and lists only its WOFF2 file (every browser the theme supports reads it), and the
book's few rules for its theme follow KaTeX's (``katex/book-math.css``). Only pages
with math link the stylesheet, and each preloads the fonts its formulas use
(``booktools.website.extension.katex_fonts``), so that they arrive in time; each font is
cut down to the characters the site's formulas draw with it.
"""

from __future__ import annotations

import functools
import re
import shutil
from pathlib import Path
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.config import Config
from sphinx.errors import ExtensionError
from sphinx.locale import _
from sphinx.util import logging
from sphinx.util.math import get_node_equation_number
from sphinx.writers.html5 import HTML5Translator
from sphinxcontrib.katex import KaTeXError, render_latex

from booktools.programs import npm_prefix
from booktools.website.extension.font_subset import stylesheet_characters, subset_font
from booktools.website.extension.katex_fonts import drawn_characters, page_fonts
from booktools.website.extension.katex_server import start_render_server

logger = logging.getLogger(__name__)

HERE = Path(__file__).resolve().parent
RENDERER = "book-katex"  # Sphinx's html_math_renderer
# Where `make setup` installs the pinned KaTeX (npm ci --prefix KATEX_PREFIX).
KATEX_PREFIX = npm_prefix("katex")
KATEX_STATIC = "katex"  # under _static/
STYLESHEET = "katex.css"  # KaTeX's stylesheet, then the book's rules (BOOK_RULES)
BOOK_RULES = HERE / "katex" / "book-math.css"
MATH_CLASS = "math notranslate nohighlight"
# Every page with math holds KaTeX's output, whose outer element has this class.
KATEX_MARK = 'class="katex"'
# KaTeX: typeset as LaTeX would, and report what it cannot, rather than print it in red.
KATEX_OPTIONS: dict[str, Any] = {"throwOnError": True, "strict": "error", "output": "htmlAndMathml"}

FONT_FACE = re.compile(r"@font-face\{[^}]*\}")
FONT_DISPLAY = re.compile(r"font-display:\w+")
FONT_SOURCES = re.compile(r'src:url\((fonts/[\w-]+\.woff2)\) format\("woff2"\)(?:,url\([^)]*\) format\("\w+"\))*')


def katex_dist(prefix: Path = KATEX_PREFIX) -> Path:
    """Return the folder of KaTeX's distribution (``katex.min.js``, ``katex.min.css``, ``fonts/``)."""
    dist = prefix / "node_modules" / "katex" / "dist"
    if not (dist / "katex.min.js").is_file():
        raise ExtensionError(
            f"KaTeX is missing from {dist}: run `make setup` (npm ci of booktools/website/extension/katex/)"
        )
    return dist


@functools.cache
def katex_stylesheet(dist: Path) -> str:
    """Return KaTeX's own stylesheet (``katex.min.css``), read once."""
    return (dist / "katex.min.css").read_text(encoding="utf-8")


def typeset(latex: str, display: bool) -> str:
    """Return KaTeX's HTML (with MathML) for ``latex``.

    Raises:
        sphinxcontrib.katex.KaTeXError: with KaTeX's message, if KaTeX cannot typeset it.
    """
    start_render_server(katex_dist() / "katex.min.js")
    return str(render_latex(latex, {**KATEX_OPTIONS, "displayMode": display}))


def display_latex(node: nodes.math_block) -> str:
    """Return the TeX of a display formula as Sphinx's MathJax renderer would hand it over.

    Parts separated by a blank line are lines of one aligned block, and a part with
    ``\\\\`` is a ``split``; an amsmath environment (``nowrap``) is taken as it is.
    """
    if node["nowrap"]:
        return str(node.astext())
    parts = [rf"\begin{{split}}{part}\end{{split}}" if r"\\" in part else part for part in split_parts(node.astext())]
    if len(parts) == 1:
        return parts[0]
    return r"\begin{aligned}" + r" \\ ".join(parts) + r"\end{aligned}"


def split_parts(text: str) -> list[str]:
    """Return the equations of a display formula: its paragraphs, without empty ones."""
    return [part for part in text.split("\n\n") if part.strip()]


def formula_html(translator: HTML5Translator, node: nodes.Element, latex: str, display: bool) -> str:
    """Return the typeset formula; on a TeX error, warn (at the node) and return its escaped source."""
    try:
        return typeset(latex, display)
    except KaTeXError as error:
        logger.warning("formula does not render: %s", error, location=node, type="math", subtype="katex")
        return f'<code class="math-error">{translator.encode(latex)}</code>'


def visit_inline_math(translator: HTML5Translator, node: nodes.math) -> None:
    """Write an inline formula, typeset."""
    translator.body.append(translator.starttag(node, "span", "", CLASS=MATH_CLASS))
    translator.body.append(formula_html(translator, node, node.astext(), display=False))
    translator.body.append("</span>")
    raise nodes.SkipNode


def visit_display_math(translator: HTML5Translator, node: nodes.math_block) -> None:
    """Write a display formula, typeset, with its number and permalink if it has one."""
    translator.body.append(translator.starttag(node, "div", CLASS=MATH_CLASS))
    if node["number"]:
        number = get_node_equation_number(translator, node)
        translator.body.append(f'<span class="eqno">({number})')
        translator.add_permalink_ref(node, _("Link to this equation"))
        translator.body.append("</span>")
    translator.body.append(formula_html(translator, node, display_latex(node), display=True))
    translator.body.append("</div>\n")
    raise nodes.SkipNode


def use_renderer(app: Sphinx, config: Config) -> None:
    """Make this module the HTML math renderer (instead of Sphinx's MathJax)."""
    config.html_math_renderer = RENDERER


def add_math_assets(app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: Any) -> None:
    """On a page with math: link the stylesheet, and preload the fonts its formulas use."""
    body = str(context.get("body", ""))
    if app.builder.format != "html" or KATEX_MARK not in body:
        return
    app.add_css_file(f"{KATEX_STATIC}/{STYLESHEET}")  # for this page only: Sphinx resets the list after it
    links = [
        f'<link rel="preload" href="{context["pathto"](f"_static/{KATEX_STATIC}/{font}", 1)}" '
        'as="font" type="font/woff2" crossorigin="anonymous" />'
        for font in page_fonts(body, katex_stylesheet(katex_dist()))
    ]
    context["metatags"] = context.get("metatags", "") + "\n".join(links) + "\n"


def site_stylesheet(katex_css: str, book_rules: str) -> str:
    """Return KaTeX's stylesheet with WOFF2 fonts only, ``font-display: optional``, then the book's rules.

    Raises:
        ExtensionError: if a ``@font-face`` rule is not as KaTeX writes it (a new KaTeX).
    """
    faces = FONT_FACE.findall(katex_css)

    def rewrite(match: re.Match[str]) -> str:
        face = match.group(0)
        face, displays = FONT_DISPLAY.subn("font-display:optional", face)
        face, sources = FONT_SOURCES.subn(r'src:url(\1) format("woff2")', face)
        if displays != 1 or sources != 1:
            raise ExtensionError(f"KaTeX's stylesheet: unexpected @font-face rule {match.group(0)!r}")
        return face

    if not faces:
        raise ExtensionError("KaTeX's stylesheet has no @font-face rule")
    return FONT_FACE.sub(rewrite, katex_css) + "\n" + book_rules


def copy_katex(app: Sphinx, exception: Exception | None) -> None:
    """Copy KaTeX's stylesheet (see ``site_stylesheet``), WOFF2 fonts and licence into ``_static/katex/``.

    Each font keeps only the characters the site's formulas draw (``katex_fonts.drawn_characters``).
    """
    if exception is not None or app.builder.format != "html":
        return
    dist = katex_dist()
    target = Path(app.outdir, "_static", KATEX_STATIC)
    (target / "fonts").mkdir(parents=True, exist_ok=True)
    css = site_stylesheet((dist / "katex.min.css").read_text(encoding="utf-8"), BOOK_RULES.read_text(encoding="utf-8"))
    (target / STYLESHEET).write_text(css, encoding="utf-8")
    pages = [page.read_text(encoding="utf-8") for page in Path(app.outdir).rglob("*.html")]
    characters = drawn_characters(pages, stylesheet_characters([target / STYLESHEET]))
    for font in (dist / "fonts").glob("*.woff2"):
        shutil.copy2(font, target / "fonts" / font.name)
        subset_font(target / "fonts" / font.name, characters)
    shutil.copy2(dist.parent / "LICENSE", target / "LICENSE")


def setup_katex_math(app: Sphinx) -> None:
    """Register the renderer and its handlers (called by ``booktools.website.extension.setup``)."""
    app.add_html_math_renderer(
        RENDERER, inline_renderers=(visit_inline_math, None), block_renderers=(visit_display_math, None)
    )
    app.connect("config-inited", use_renderer)
    app.connect("html-page-context", add_math_assets)
    app.connect("build-finished", copy_katex)
