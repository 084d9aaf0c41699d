"""Markdown as MyST reads it: myst-parser's own markdown-it parser, with the book's extensions.

Whatever booktools needs to know about a markdown cell (its headings and their
labels here; what the translation checker compares, in
``booktools.checks.translations.markdown``) comes from the tokens of this parser, the
one Jupyter Book renders the pages with, never from a regular expression over lines.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from dataclasses import dataclass

from markdown_it import MarkdownIt
from markdown_it.renderer import RendererHTML
from myst_parser.config.main import MdParserConfig
from myst_parser.parsers.mdit import create_md_parser

from booktools.project import Project

__all__ = ["Heading", "extensions_of", "headings", "parser"]


@dataclass(frozen=True)
class Heading:
    """A heading of a markdown cell: its level (1 for ``#``), its text and the MyST label just above it."""

    level: int
    title: str
    label: str | None = None


def extensions_of(project: Project) -> frozenset[str]:
    """The MyST extensions a book enables (``parse.myst_enable_extensions`` in its ``_config.yml``)."""
    return frozenset(project.config().parse.myst_enable_extensions)


@functools.lru_cache(maxsize=4)
def _parser(extensions: frozenset[str]) -> MarkdownIt:
    return create_md_parser(MdParserConfig(enable_extensions=set(extensions)), RendererHTML)


def parser(extensions: Iterable[str] | None = None) -> MarkdownIt:
    """The MyST parser with ``extensions`` (default: those this checkout's ``_config.yml`` enables)."""
    return _parser(frozenset(extensions) if extensions is not None else extensions_of(Project.here()))


def headings(text: str, extensions: Iterable[str] | None = None) -> list[Heading]:
    """The headings of a markdown text, in order; a label ``(name)=`` right above a heading is its label."""
    tokens = parser(extensions).parse(text)
    found = []
    for index, token in enumerate(tokens):
        if token.type != "heading_open":
            continue
        before = tokens[index - 1] if index else None
        label = before.content.strip() if before is not None and before.type == "myst_target" else None
        title = tokens[index + 1].content.strip()
        found.append(Heading(int(token.tag[1:]), title, label))
    return found
