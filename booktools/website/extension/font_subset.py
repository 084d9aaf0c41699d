"""A web font cut down to the characters a site draws with it (fontTools' subsetter).

Used for Font Awesome's fonts (``booktools.website.extension.icon_font``) and KaTeX's
(``booktools.website.extension.katex_math``). :func:`stylesheet_characters` reads what a
stylesheet draws itself (``content: "\\f0f3"``, read with tinycss2). The subsetter, the
WOFF2 encoder (Brotli) and tinycss2 are pinned in ``requirements.txt``.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path

import tinycss2
from fontTools import subset
from tinycss2 import ast

FLAVORS = {".woff2": "woff2", ".ttf": None}  # the font files the sites' @font-face rules name
NESTING_AT_RULES = {"media", "supports", "layer", "container"}


def subset_font(path: Path, characters: set[int]) -> None:
    """Rewrite the font at ``path`` with only the glyphs of ``characters`` (those it has)."""
    options = subset.Options()
    options.flavor = FLAVORS[path.suffix]
    font = subset.load_font(str(path), options)
    subsetter = subset.Subsetter(options)
    subsetter.populate(unicodes=characters & set(font.getBestCmap()))
    subsetter.subset(font)
    subset.save_font(font, str(path), options)


def _tokens(nodes: Iterable[ast.Node]) -> Iterator[ast.Node]:
    """Every token of a declaration's value, inside functions too (``var(--x, "\\f0f3")``)."""
    for node in nodes:
        yield node
        yield from _tokens(getattr(node, "arguments", None) or getattr(node, "content", None) or [])


def _drawn_strings(rules: Iterable[ast.Node]) -> Iterator[str]:
    """The strings of every ``content`` and custom property (``--name``) of ``rules``, in ``@media`` too."""
    for rule in rules:
        if isinstance(rule, ast.AtRule) and rule.content is not None and rule.lower_at_keyword in NESTING_AT_RULES:
            yield from _drawn_strings(tinycss2.parse_rule_list(rule.content, skip_comments=True, skip_whitespace=True))
        elif isinstance(rule, ast.QualifiedRule):
            for declaration in tinycss2.parse_declaration_list(rule.content, skip_comments=True, skip_whitespace=True):
                if isinstance(declaration, ast.Declaration) and (
                    declaration.lower_name == "content" or declaration.name.startswith("--")
                ):
                    yield from (token.value for token in _tokens(declaration.value) if token.type == "string")


def stylesheet_characters(stylesheets: Iterable[Path]) -> set[int]:
    """Return the code points of every character that ``stylesheets`` draw: their ``content`` strings."""
    characters: set[int] = set()
    for path in stylesheets:
        rules = tinycss2.parse_stylesheet(path.read_text(encoding="utf-8"), skip_comments=True, skip_whitespace=True)
        for text in _drawn_strings(rules):
            characters.update(map(ord, text))
    return characters
