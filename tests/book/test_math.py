"""Math typeset at build time (booktools/website/extension/katex_math.py): no math script in any page.

On the built site: no page loads MathJax or KaTeX; every formula of every page is KaTeX's
HTML with its MathML, no TeX is left in the prose; numbered equations keep their numbers,
and every ``{eq}`` link leads to its equation; the math stylesheet and fonts are the site's
own, only on pages with math, never reflow a page, and hold just the characters the
formulas draw. On a small Sphinx project: amsmath
and labelled equations typeset, and a formula KaTeX cannot typeset fails a strict build.
"""

from __future__ import annotations

import re
import textwrap
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
from bs4 import BeautifulSoup
from fontTools.ttLib import TTFont
from sphinx.application import Sphinx
from sphinx.errors import SphinxError

from booktools.project import Project
from booktools.website.extension import font_subset, katex_fonts, katex_math

PROJECT = Project.here()
CHAPTER = "attention-scoring-functions"
STYLESHEET = f"_static/{katex_math.KATEX_STATIC}/{katex_math.STYLESHEET}"
MATH_SCRIPT = re.compile(r"mathjax|katex", re.IGNORECASE)
RAW_TEX = ("$$", "\\(", "\\[", "\\begin{")
SCRIPT = re.compile(r"<script\b.*?</script>", re.DOTALL)
MATH_ELEMENT = re.compile(r'class="math[ "]')
KEEPS_TEX = re.compile(r"<(annotation|pre|code|script|style)\b.*?</\1>", re.DOTALL)
# The slide decks (<edition>/slides/) are rendered by nbconvert and typeset their math with
# MathJax in the browser (booktools/slides/mathjax.py): they are not pages of the book.
SLIDES = "slides"


def book_pages(site: Path) -> list[Path]:
    """Every page of the site: the landing page and each edition's pages, not the slide decks."""
    return sorted(page for page in site.rglob("*.html") if SLIDES not in page.relative_to(site).parts)


def soup(page: Path) -> BeautifulSoup:
    return BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")


@pytest.fixture(scope="module")
def math_pages(site: Path) -> dict[Path, BeautifulSoup]:
    """The pages that hold math (an element of class ``math``), each parsed once."""
    pages = [page for page in book_pages(site) if MATH_ELEMENT.search(page.read_text(encoding="utf-8"))]
    return {page: soup(page) for page in pages}


# The built site -----------------------------------------------------------------------


def test_no_page_loads_a_math_script(site, built_editions):
    pages = book_pages(site)
    assert len(pages) > 3 * len(built_editions)
    offenders = [
        f"{page.relative_to(site)}: {script[:120]}"
        for page in pages
        for script in SCRIPT.findall(page.read_text(encoding="utf-8"))
        if MATH_SCRIPT.search(script)
    ]
    assert offenders == []
    for code in built_editions:
        assert not (site / code / "_static" / "mathjax").exists(), "MathJax is still copied into the site"


def test_every_formula_is_typeset_with_its_mathml(site, built_editions, math_pages):
    for code in built_editions:
        assert site / code / f"{CHAPTER}.html" in math_pages, f"{code}: the chapter has math"
    for page, html in math_pages.items():
        formulas = html.select(".math")
        assert not html.select(".math-error"), page
        for formula in formulas:
            assert len(formula.select(".katex")) == 1, (page, str(formula)[:200])
            mathml = formula.select_one(".katex-mathml math annotation[encoding='application/x-tex']")
            assert mathml is not None and mathml.get_text().strip(), (page, str(formula)[:200])
            assert formula.select_one(".katex-html").get("aria-hidden") == "true", page
        display = [formula for formula in formulas if formula.name == "div"]
        assert all(formula.select_one(".katex-display") for formula in display), page


def test_no_tex_is_left_in_the_prose(site, math_pages):
    for page in math_pages:
        # TeX stays only where it belongs: the MathML's annotation, and code.
        html = KEEPS_TEX.sub("", page.read_text(encoding="utf-8"))
        for raw in RAW_TEX:
            assert raw not in html, f"{page.relative_to(site)}: raw TeX {raw!r} in the page"


def test_equation_numbers_and_their_links(site, built_editions, math_pages):
    for code in built_editions:
        pages = {page.name: html for page, html in math_pages.items() if page.parent == site / code}
        numbers: dict[tuple[str, str], str] = {}
        for name, html in pages.items():
            for equation in html.select("div.math[id^='equation-']"):
                number = equation.select_one(".eqno").get_text().strip()
                numbers[(name, equation["id"])] = number.rstrip("#").strip()
        assert len(numbers) >= 6, f"{code}: the chapter numbers its equations"
        assert all(re.fullmatch(r"\(\d+(\.\d+)*\)", number) for number in numbers.values()), numbers
        links = 0
        for name, html in pages.items():
            for link in html.select("a.reference.internal[href*='#equation-']"):
                parts = urlsplit(link["href"])
                target = unquote(parts.path) or name
                assert numbers.get((target, parts.fragment)) == link.get_text().strip(), (code, name, link)
                links += 1
        assert links >= 3, f"{code}: the chapters refer to their equations"


def linked_css(edition: Path, page: str) -> str:
    """The text of the stylesheets ``page`` links (the theme bundles a page's stylesheets into one)."""
    text = (edition / page).read_text(encoding="utf-8")
    head = BeautifulSoup(text[: text.index("</head>")], "html.parser")
    links = head.select("link[rel~=stylesheet]")
    return "".join((edition / link["href"]).read_text(encoding="utf-8") for link in links)


def test_math_styles_and_fonts_are_the_sites_own_and_never_reflow(site, built_editions):
    for code in built_editions:
        edition = site / code
        source = edition / STYLESHEET
        assert len(source.read_bytes()) < 30_000, "the math stylesheet stays small"
        # The chapter's stylesheet (KaTeX's rules among the theme's, booktools.website.extension.stylesheets)
        css = linked_css(edition, f"{CHAPTER}.html")
        faces = [face for face in re.findall(r"@font-face\{[^}]*\}", css) if "KaTeX_" in face]
        assert faces and all("font-display:optional" in face for face in faces), "a late font would reflow the page"
        fonts = [font for face in faces for font in re.findall(r"url\(([^)]*)\)", face)]
        assert fonts and all(font.endswith(".woff2") for font in fonts), fonts
        assert all((edition / "_static" / font).is_file() for font in fonts), fonts
        text = (edition / f"{CHAPTER}.html").read_text(encoding="utf-8")
        chapter = BeautifulSoup(text[: text.index("</head>")], "html.parser")
        preloads = [link for link in chapter.select("link[rel=preload]") if "/katex/" in link.get("href", "")]
        assert len(preloads) >= 3, "the chapter preloads the fonts of its formulas"
        assert all(link.get("as") == "font" and link.has_attr("crossorigin") for link in preloads)
        assert all((edition / link["href"]).is_file() for link in preloads)
        for page in ("index.html", "search.html", "genindex.html"):
            assert "/katex/" not in (edition / page).read_text(encoding="utf-8"), f"{page} has no math"
            assert "KaTeX_" not in linked_css(edition, page), f"{page} loads no math style"


# What a phone downloads for the chapter's math before its first paint: the fonts the chapter
# preloads, cut to the characters the book's formulas draw (about 40 KB; KaTeX's own are 110 KB).
PRELOADED_MATH_FONT_BUDGET = 50_000


def cmap(font: Path) -> set[int]:
    """The characters a font file holds."""
    with TTFont(font) as opened:
        return set(opened.getBestCmap())


def test_math_fonts_hold_the_characters_the_formulas_draw(site, built_editions):
    originals = katex_math.katex_dist() / "fonts"
    for code in built_editions:
        edition = site / code
        static = edition / "_static" / katex_math.KATEX_STATIC
        pages = [page.read_text(encoding="utf-8") for page in edition.rglob("*.html")]
        drawn = katex_fonts.drawn_characters(pages, font_subset.stylesheet_characters([static / katex_math.STYLESHEET]))
        assert {ord("α"), ord("∑"), ord("q"), ord("k")} <= drawn, "the chapter's formulas draw these"
        for font in sorted((static / "fonts").glob("*.woff2")):
            held, original = cmap(font), cmap(originals / font.name)
            # Every character a formula draws that KaTeX's font has is still there. Beyond them the
            # font keeps what its own substitutions reach from them (the mirror images of right-to-left
            # text: < for >, ≥ for ≤, ∋ for ∈), a handful, not the rest of TeX's characters.
            missing = (original & drawn) - held
            assert not missing, f"{font.name} lost characters a formula draws: {sorted(map(chr, missing))}"
            assert len(held - drawn) <= max(4, len(held & drawn) // 4), f"{font.name}: {sorted(map(chr, held - drawn))}"
        text = (edition / f"{CHAPTER}.html").read_text(encoding="utf-8")
        head = BeautifulSoup(text[: text.index("</head>")], "html.parser")
        preloaded = [edition / link["href"] for link in head.select("link[rel=preload][as=font]")]
        size = sum(font.stat().st_size for font in preloaded if "/katex/" in font.as_posix())
        assert 0 < size <= PRELOADED_MATH_FONT_BUDGET, f"{code}: {size} bytes of math fonts before the first paint"


def test_drawn_characters_are_those_of_katexs_html_not_its_mathml():
    page = (
        '<p>prose ж</p><span class="katex"><span class="katex-mathml"><math><mi>β</mi></math></span>'
        '<span class="katex-html" aria-hidden="true"><span class="base"><span class="strut"></span>'
        '<span class="mord mathnormal">α</span><br><span class="mbin">&#x2212;</span></span></span></span>'
        "<span>after ю</span>"
    )
    drawn = katex_fonts.drawn_characters([page, "<p>no math: я</p>"], {ord("(")})
    assert {chr(point) for point in drawn} == {"α", "−", "("} | set("0123456789")


# A small Sphinx project with the renderer ------------------------------------------------

CONF = """\
from booktools.website.extension.katex_math import setup_katex_math

extensions = ["myst_parser"]
myst_enable_extensions = ["amsmath", "dollarmath"]
numfig = True
math_numfig = True


def setup(app):
    setup_katex_math(app)
"""


def build_small_project(tmp_path: Path, page: str) -> tuple[Path, str]:
    """Build a one-page Sphinx project with warnings as errors; return the page's HTML path and the warnings."""
    source = tmp_path / "source"
    source.mkdir()
    (source / "conf.py").write_text(CONF, encoding="utf-8")
    (source / "index.md").write_text(textwrap.dedent(page), encoding="utf-8")
    warnings: list[str] = []

    class Stream:
        def write(self, text: str) -> None:
            warnings.append(text)

        def flush(self) -> None:
            pass

    app = Sphinx(
        str(source), str(source), str(tmp_path / "html"), str(tmp_path / "doctrees"), "html",
        status=None, warning=Stream(), warningiserror=True, keep_going=True, freshenv=True,
    )  # fmt: skip
    try:
        app.build()
    except SphinxError:
        pass
    return tmp_path / "html" / "index.html", "".join(warnings) if app.statuscode else ""


def test_amsmath_and_labelled_equations_typeset(tmp_path: Path):
    page, warnings = build_small_project(
        tmp_path,
        r"""
        # Math

        Inline $\alpha_i$ and a labelled equation:

        $$
        a(\mathbf{q}, \mathbf{k}) = \frac{\mathbf{q}^\top \mathbf{k}}{\sqrt{d}}
        $$ (eq-score)

        \begin{align}
        x &= 1 \\
        y &= 2
        \end{align}

        $$
        a &= b \\
        c &= d
        $$

        See {eq}`eq-score`.
        """,
    )
    assert warnings == ""
    html = soup(page)
    assert len(html.select(".math .katex")) == 4
    equation = html.select_one("div.math#equation-eq-score")
    assert equation.select_one(".eqno").get_text().startswith("(1)")
    assert html.select_one("a.reference[href='#equation-eq-score']").get_text() == "(1)"
    assert not html.find_all("script", src=MATH_SCRIPT)
    assert (page.parent / STYLESHEET).is_file()


@pytest.mark.parametrize("formula", [r"$\frac{1}{$", r"$\notacommand{x}$", r"$$\begin{nosuchenv}x\end{nosuchenv}$$"])
def test_a_formula_that_does_not_render_fails_the_build(tmp_path: Path, formula: str):
    page, warnings = build_small_project(tmp_path, f"# Math\n\nBroken: {formula}\n")
    assert "formula does not render" in warnings, warnings
    assert "index.md:3" in warnings, "the warning names the page and line"
