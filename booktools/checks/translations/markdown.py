"""Read a markdown cell as MyST reads it: what a translation must keep, and the prose it translates.

The cell is parsed by myst-parser's own markdown-it parser (``create_md_parser``),
with the syntax extensions ``_config.yml`` enables (``parse.myst_enable_extensions``),
so a label, a role, a directive, math or code is whatever the rendered book takes
for one: a ``$`` inside inline code is code, a directive inside a list item is a
directive, and a code block inside a ``::::`` directive stays code. The body of
a directive is parsed the same way, after its options (``:key: value`` lines or
a ``---`` YAML block), except that of a code directive.

:func:`parse_markdown` (and :func:`parsed`, a cell's text without its slide marks, read once
per process) returns the parts the checker compares with English (math,
labels, role targets, directives with their arguments and options, heading levels,
URLs) and the prose, one block (paragraph, heading, list item, table cell, a
titled directive's title, a figure's ``:alt:``) per entry, with the line it starts on.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

import yaml
from markdown_it.token import Token

from booktools.sources.myst import parser
from booktools.sources.slide_marks import strip_slide_marks

CODE_DIRECTIVES = frozenset({"code", "code-block", "code-cell", "sourcecode"})
TITLE_DIRECTIVES = frozenset({"admonition", "dropdown", "topic", "sidebar", "card", "tab-item"})  # prose title
PROSE_OPTIONS = frozenset({"alt"})  # directive options whose value is prose, not compared
DIRECTIVE = re.compile(r"^\{(?P<name>[^{}\s]+)\}\s*(?P<argument>.*)$")
OPTION = re.compile(r"^:(?P<key>[\w-]+):\s*(?P<value>.*?)\s*$")
ROLE_TARGET = re.compile(r"<([^<>]+)>\s*$")
# A URL written out in the text, not linked (MyST links it only with the linkify extension).
URL = re.compile(r"<?https?://[^\s)>\]]+>?")
HTML_TAG = re.compile(r"<[^<>]+>")


@dataclass
class Markdown:
    """What a markdown cell must share with its English original, and its prose."""

    math_blocks: list[tuple[str, str]] = field(default_factory=list)  # (squashed TeX, label or "")
    inline_math: list[str] = field(default_factory=list)
    labels: list[str] = field(default_factory=list)
    roles: list[str] = field(default_factory=list)  # "{role}target", one per target
    directives: list[str] = field(default_factory=list)  # "name argument :option: value ..."
    headings: list[str] = field(default_factory=list)  # "#" per level
    urls: list[str] = field(default_factory=list)
    blocks: list[tuple[int, str]] = field(default_factory=list)  # (line, text) of each block of prose

    @property
    def prose(self) -> str:
        """The prose, one block per paragraph (code, math, markup and URLs left out)."""
        return "\n\n".join(text for _, text in self.blocks)


def squash(text: str) -> str:
    """Collapse white space to single spaces."""
    return " ".join(text.split())


def parse_markdown(text: str) -> Markdown:
    """Split a markdown cell into the parts the checker compares (see the module docstring)."""
    found = Markdown()
    _read(text, 0, found)
    found.roles.sort()
    found.urls.sort()
    return found


def _read(text: str, offset: int, found: Markdown) -> None:
    """Add what ``text`` holds to ``found``; ``offset`` is the line of the cell ``text`` starts after."""
    for token in parser().parse(text):
        line = offset + token.map[0] + 1 if token.map else offset + 1
        kind = token.type
        if kind == "myst_target":
            found.labels.append(token.content)
        elif kind == "heading_open":
            found.headings.append("#" * int(token.tag[1:]))
        elif kind == "math_block_label":
            found.math_blocks.append((squash(token.content), token.info))
        elif kind in ("math_block", "amsmath"):
            found.math_blocks.append((squash(token.content), ""))
        elif kind in ("fence", "colon_fence"):
            _directive(token, line, found)
        elif kind == "code_block":
            found.directives.append("code block")
        elif kind == "inline":
            found.blocks.append((line, _inline(token.children or [], found)))
        elif kind == "html_block":
            found.blocks.append((line, HTML_TAG.sub(" ", token.content)))


def _inline(children: Sequence[Token], found: Markdown) -> str:
    """Return the prose of a block's inline tokens, recording their math, roles and URLs."""
    words: list[str] = []
    in_autolink = False
    for token in children:
        kind = token.type
        if kind == "text" and not in_autolink:
            found.urls += [url.strip("<>") for url in URL.findall(token.content)]
            words.append(URL.sub(" ", token.content))
        elif kind in ("softbreak", "hardbreak"):
            words.append("\n")
        elif kind == "math_inline":
            found.inline_math.append(squash(token.content))
            words.append(" ")
        elif kind == "math_inline_double":
            found.math_blocks.append((squash(token.content), ""))
            words.append(" ")
        elif kind == "myst_role":
            content = token.content
            target = ROLE_TARGET.search(content)
            keys = (target.group(1) if target else content).split(",")
            found.roles += [f"{{{token.meta['name']}}}{key.strip()}" for key in keys]
            words.append(" ")
        elif kind == "link_open":
            found.urls.append(str(token.attrs.get("href", "")))
            in_autolink = token.markup in ("autolink", "linkify")
        elif kind == "link_close":
            in_autolink = False
        elif kind.endswith(("_open", "_close")):  # emphasis, strong, strikethrough: markup, not a word break
            continue
        elif kind == "image":
            found.urls.append(str(token.attrs.get("src", "")))
            words.append(_inline(token.children or [], found))
        else:  # code, HTML, footnote references: not prose
            words.append(" ")
    return "".join(words)


def _options(content: str) -> tuple[list[tuple[int, str, str]], str, int]:
    """Split a directive's content into its options (line within the content, key, value), its body
    and the number of lines the options take."""
    lines = content.split("\n")
    if lines and lines[0].strip() == "---":
        end = next((i for i, line in enumerate(lines[1:], start=1) if line.strip() == "---"), None)
        if end is not None:
            data = yaml.safe_load("\n".join(lines[1:end])) or {}
            items = data.items() if isinstance(data, dict) else []
            options = [(1, str(key), "" if value is None else str(value)) for key, value in items]
            return options, "\n".join(lines[end + 1 :]), end + 1
    options = []
    for number, line in enumerate(lines, start=1):
        match = OPTION.match(line)
        if not match:
            break
        options.append((number, match["key"], match["value"]))
    return options, "\n".join(lines[len(options) :]), len(options)


def _directive(token: Token, line: int, found: Markdown) -> None:
    """Record a fenced block: a code block, or a directive with its options, title and body."""
    match = DIRECTIVE.match(token.info.strip())
    if not match:
        found.directives.append(f"code block {token.info.strip()}".strip())
        return
    name, argument = match["name"], match["argument"].strip()
    titled = name in TITLE_DIRECTIVES
    entry = name if titled else f"{name} {argument}".strip()
    if titled and argument:
        found.blocks.append((line, argument))
    options, body, option_lines = _options(token.content)
    for number, key, value in options:
        if key in PROSE_OPTIONS:
            found.blocks.append((line + number, value))
        else:
            entry += f" :{key}: {value}"
    found.directives.append(entry)
    if name == "math":
        found.math_blocks.append((squash(body), ""))
    elif name not in CODE_DIRECTIVES:  # code is neither compared (examples may be translated) nor prose
        _read(body, line + option_lines, found)


@functools.lru_cache(maxsize=4096)
def parsed(source: str) -> Markdown:
    """A markdown cell as MyST reads it, its slide marks removed (slides-only text kept).

    Read once per process (with this checkout's MyST settings, as ever): a check reads a cell up to
    three times and English's once per edition. Callers read the result, they never change it.
    """
    return parse_markdown(strip_slide_marks(source, keep_slides_only=True))
