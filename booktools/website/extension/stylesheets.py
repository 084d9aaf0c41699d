"""One small stylesheet per page: the theme's stylesheets bundled, without the rules no page can use.

A page of the theme links thirteen stylesheets, one of which ``@import``-s another:
about 100 KB gzipped in fourteen requests, two of them one after the other, all
before the first paint. Most of it is never used: pydata-sphinx-theme's
stylesheet holds all of Bootstrap and a rule for each of Font Awesome's 2,000
icons. After each edition is written, :func:`bundle_site` makes of each page's
stylesheets one file, ``_static/book-<digest>.css``, linked instead of them:

- in the page's order, ``@import``-ed files in place, each ``url()`` rewritten to
  point from the bundle to the same file;
- a rule is kept if one of its selectors can match: every class and id it
  requires (outside functional pseudo-classes such as ``:not()``, which are not
  read) is a word of the edition's pages or scripts. The words are taken from
  the whole text of every HTML and JavaScript file of the edition, so a class a
  script adds (Bootstrap's ``show``, the Live code's, the quizzes') is kept;
  Thebe's stylesheet is not bundled (it loads with Thebe).

The CSS is parsed and written by tinycss2 (pinned in ``requirements.txt``).
"""

from __future__ import annotations

import hashlib
import os
import posixpath
import re
from pathlib import Path

import tinycss2
from tinycss2 import ast
from tinycss2.serializer import serialize_string_value, serialize_url

BUNDLE_PREFIX = "book-"
_LINK = re.compile(r'[ \t]*<link\b[^>]*\brel="stylesheet"[^>]*>\n?')
_HREF = re.compile(r'\bhref="([^"]+)"')
_WORD = re.compile(r"[A-Za-z_][\w-]*")
_FUNCTIONAL = re.compile(r":[\w-]+\([^()]*\)")
_ATTRIBUTE_SELECTOR = re.compile(r"\[[^\]]*\]")
_REQUIRED = re.compile(r"[.#]((?:[\w-]|\\.)+)")
# At-rules whose block holds rules, filtered like the stylesheet itself.
NESTING_AT_RULES = {"media", "supports", "layer", "container"}
SKIPPED_SCRIPTS = ("mathjax",)  # folders of _static whose scripts add no class of the theme


def used_words(outdir: Path) -> set[str]:
    """Every word of the edition's HTML pages and scripts: the classes and ids a rule may need."""
    words: set[str] = set()
    for path in [*outdir.rglob("*.html"), *outdir.rglob("*.js")]:
        if path.is_file() and not any(part in SKIPPED_SCRIPTS for part in path.parts):
            words.update(_WORD.findall(path.read_text(encoding="utf-8", errors="replace")))
    return words


def can_match(selector: str, words: set[str]) -> bool:
    """Whether a selector may match: each class and id it requires is one of ``words``.

    Functional pseudo-classes (``:not(.a)``, ``:is(.a, .b)``) and attribute selectors are not read.
    """
    previous = None
    while previous != selector:
        previous, selector = selector, _FUNCTIONAL.sub("", selector)
    selector = _ATTRIBUTE_SELECTOR.sub("", selector)
    return all(name.replace("\\", "") in words for name in _REQUIRED.findall(selector))


def split_selectors(prelude: str) -> list[str]:
    """Split a selector list at its top-level commas."""
    parts, depth, current = [], 0, ""
    for char in prelude:
        if char in "([":
            depth += 1
        elif char in ")]":
            depth -= 1
        if char == "," and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += char
    return [part.strip() for part in [*parts, current] if part.strip()]


def rewrite_urls(tokens: list[ast.Node], source: Path, bundle_dir: Path) -> None:
    """Point every relative ``url()`` in ``tokens`` from the bundle to the file it named from ``source``."""
    for token in tokens:
        target = None
        if isinstance(token, ast.URLToken):
            target = token
        elif isinstance(token, ast.FunctionBlock) and token.lower_name == "url":
            target = next((arg for arg in token.arguments if isinstance(arg, ast.StringToken)), None)
        if target is not None and not re.match(r"^(data:|[a-z]+://|/|#)", target.value):
            path, _, rest = target.value.partition("?")
            relative = os.path.relpath(source.parent / path, bundle_dir).replace(os.sep, "/")
            target.value = relative + (f"?{rest}" if rest else "")
            # tinycss2 writes a URL or string token as it was read (its representation).
            if isinstance(target, ast.URLToken):
                target.representation = f"url({serialize_url(target.value)})"
            else:
                target.representation = f'"{serialize_string_value(target.value)}"'
        if isinstance(
            token, (ast.FunctionBlock, ast.ParenthesesBlock, ast.SquareBracketsBlock, ast.CurlyBracketsBlock)
        ):
            rewrite_urls(list(getattr(token, "arguments", None) or token.content or []), source, bundle_dir)


def filtered(rules: list[ast.Node], words: set[str], source: Path, bundle_dir: Path) -> list[ast.Node]:
    """The rules of one stylesheet that may match, with ``@import``-ed files in place."""
    kept: list[ast.Node] = []
    for rule in rules:
        if isinstance(rule, ast.QualifiedRule):
            selectors = [s for s in split_selectors(tinycss2.serialize(rule.prelude)) if can_match(s, words)]
            if selectors:
                rule.prelude = tinycss2.parse_component_value_list(",".join(selectors))
                rewrite_urls(rule.content, source, bundle_dir)
                kept.append(rule)
        elif isinstance(rule, ast.AtRule) and rule.lower_at_keyword == "import":
            name = next(t.value for t in rule.prelude if isinstance(t, (ast.StringToken, ast.URLToken)))
            kept += filtered(parse(source.parent / name), words, source.parent / name, bundle_dir)
        elif isinstance(rule, ast.AtRule) and rule.lower_at_keyword in NESTING_AT_RULES and rule.content:
            inner = filtered(tinycss2.parse_rule_list(rule.content, True, True), words, source, bundle_dir)
            if inner:
                rule.content = [token for node in inner for token in (node, ast.WhitespaceToken(0, 0, "\n"))]
                kept.append(rule)
        elif isinstance(rule, ast.AtRule):
            rewrite_urls(rule.content or [], source, bundle_dir)
            kept.append(rule)
    return kept


def parse(path: Path) -> list[ast.Node]:
    """The rules of a stylesheet, without comments and whitespace."""
    return list(tinycss2.parse_stylesheet(path.read_text(encoding="utf-8"), True, True))


def bundle(sources: list[Path], words: set[str], static: Path) -> Path:
    """Write the bundle of ``sources`` into ``static``; return its path (named by its content)."""
    rules = [rule for source in sources for rule in filtered(parse(source), words, source, static)]
    text = "\n".join(tinycss2.serialize([rule]) for rule in rules) + "\n"
    path = static / f"{BUNDLE_PREFIX}{hashlib.sha256(text.encode()).hexdigest()[:12]}.css"
    path.write_text(text, encoding="utf-8")
    return path


def bundle_site(outdir: Path) -> list[Path]:
    """Give every page of an edition one bundled stylesheet instead of its theme's; return the bundles."""
    static = (outdir / "_static").resolve()
    words = used_words(outdir)
    made: dict[tuple[Path, ...], Path] = {}
    for page in outdir.rglob("*.html"):
        text = page.read_text(encoding="utf-8")
        head_end = text.find("</head>")
        links = [m for m in _LINK.finditer(text, 0, head_end) if _HREF.search(m.group(0))]
        if not links:
            continue
        hrefs = [found.group(1) for m in links if (found := _HREF.search(m.group(0)))]
        sources = tuple((page.parent / href.split("?")[0]).resolve() for href in hrefs)
        if not all(source.is_relative_to(static) for source in sources):
            continue  # not a page of the theme
        if sources not in made:
            made[sources] = bundle(list(sources), words, static)
        href = posixpath.relpath(made[sources].as_posix(), page.parent.resolve().as_posix())
        tag = f'    <link rel="stylesheet" href="{href}" />\n'
        text = text[: links[0].start()] + tag + _LINK.sub("", text[links[0].start() : head_end]) + text[head_end:]
        page.write_text(text, encoding="utf-8")
    return list(made.values())
