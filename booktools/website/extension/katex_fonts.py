"""Which of KaTeX's fonts a page's formulas use, read from KaTeX's own stylesheet.

The site's math fonts are ``font-display: optional`` (``booktools.website.extension.katex_math``):
a font that has not arrived when the text is first drawn is not used on that page view,
so a page never reflows, but a font the browser only asks for once the page is laid out
(the big ``\\sum`` of a display formula, ``\\mathbb{R}``) would miss its page and leave the
formula in a fallback face. So each page with math preloads exactly the fonts its
formulas use, found as a browser would: KaTeX's stylesheet gives each class of its output
a font family, weight or style (``.katex .mathbf {font-family: KaTeX_Main; font-weight:
700}``), the page's ``class`` attributes say which classes occur together, and the
``@font-face`` rules map each family, weight and style to its file. Every formula uses
``KaTeX_Main`` at its regular weight, the font of ``.katex`` itself.

The fonts hold only what the site draws with them (:func:`drawn_characters`): the
characters of KaTeX's HTML output on the site's pages, those of the ``content`` of
KaTeX's stylesheet (the brackets of an equation's number) and the digits its counters
write. KaTeX's own fonts carry every glyph of TeX's (26 KB for ``KaTeX_Main``); the
book's formulas use about seventy characters (9 KB), and a phone waits for each
preloaded byte before the page is drawn.
"""

from __future__ import annotations

import re
import string
from dataclasses import dataclass

from bs4 import BeautifulSoup
from bs4.filter import SoupStrainer

FONT_FACE = re.compile(r"@font-face\{([^}]*)\}")
RULE = re.compile(r"([^{}]+)\{([^{}]*)\}")
CLASS_ATTRIBUTE = re.compile(r'class="([^"]*)"')
WOFF2_SOURCE = re.compile(r"url\(([^)]*\.woff2)\)")
COMBINATORS = re.compile(r"[\s>+~]+")
# The font of ``.katex`` (``font: normal 1.21em KaTeX_Main, ...``): family, weight, style.
DEFAULT_FONT = ("KaTeX_Main", "400", "normal")
# The visible part of KaTeX's output (beside it, ``katex-mathml`` is read, not drawn).
DRAWN_CLASS = "katex-html"
# Characters a stylesheet writes without naming them: the numbers of ``counter()``.
COUNTER_CHARACTERS = frozenset(map(ord, string.digits))


@dataclass(frozen=True)
class FontRule:
    """A rule of KaTeX's stylesheet that sets a font: the classes it needs together, and what it sets."""

    classes: frozenset[str]
    family: str | None
    weight: str | None
    style: str | None


def declarations(block: str) -> dict[str, str]:
    """Return the ``property: value`` pairs of a CSS block."""
    pairs = (item.split(":", 1) for item in block.split(";") if ":" in item)
    return {name.strip(): value.strip() for name, value in pairs}


def font_files(css: str) -> dict[tuple[str, str, str], str]:
    """Return the WOFF2 file (as the stylesheet names it) of each family, weight and style."""
    files = {}
    for block in FONT_FACE.findall(css):
        face = declarations(block)
        source = WOFF2_SOURCE.search(face.get("src", ""))
        if source and "font-family" in face:
            key = (face["font-family"], face.get("font-weight", "400"), face.get("font-style", "normal"))
            files[key] = source.group(1)
    return files


def font_rules(css: str) -> list[FontRule]:
    """Return the rules that set a font family, weight or style, in the stylesheet's order."""
    rules = []
    for selectors, block in RULE.findall(FONT_FACE.sub("", css)):
        found = declarations(block)
        family, weight, style = (found.get(name) for name in ("font-family", "font-weight", "font-style"))
        if not (family or weight or style):
            continue
        for selector in selectors.split(","):
            compounds = [part for part in COMBINATORS.split(selector.strip()) if "." in part]
            if compounds:
                classes = frozenset(name for name in compounds[-1].split(".")[1:] if name)
                rules.append(FontRule(classes, family.split(",")[0] if family else None, weight, style))
    return rules


def page_fonts(body: str, css: str) -> list[str]:
    """Return the font files (as the stylesheet names them) that the formulas in ``body`` use.

    The default font first, then in the order the page first uses each.
    """
    rules = font_rules(css)
    files = font_files(css)
    used = [files[DEFAULT_FONT]] if DEFAULT_FONT in files else []
    for attribute in dict.fromkeys(CLASS_ATTRIBUTE.findall(body)):
        classes = set(attribute.split())
        family, weight, style = DEFAULT_FONT
        matched = False
        for rule in rules:
            if rule.classes <= classes:
                matched = True
                family, weight, style = rule.family or family, rule.weight or weight, rule.style or style
        file = files.get((family, weight, style))
        if matched and file and file not in used:
            used.append(file)
    return used


def drawn_characters(pages: list[str], content_strings: set[int]) -> set[int]:
    """Return the code points KaTeX's fonts draw on ``pages`` (HTML texts).

    The text of KaTeX's HTML output, plus ``content_strings`` (the characters of the
    stylesheet's ``content`` declarations) and the digits of its counters.
    """
    characters = set(content_strings) | COUNTER_CHARACTERS
    drawn = SoupStrainer(class_=DRAWN_CLASS)  # parse only those elements, with what they hold
    for page in pages:
        if DRAWN_CLASS in page:
            characters.update(map(ord, BeautifulSoup(page, "html.parser", parse_only=drawn).get_text()))
    return characters
