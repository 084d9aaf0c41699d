"""The words a reader meets on a built page, in each framework's tab, against the pages' word caps.

A page's length is counted on the page as built (``_build/html/<lang>/<page>.html``),
as a reader meets it: the article's paragraphs, list items, headings (with their
numbers) and captions, for one framework's tab at a time. Prose outside the tab
sets counts for every framework; inside a tab set, only that framework's tab. Left
out: code and literal blocks, code cells with their outputs, display math, the other
frameworks' tabs and the tabs' names, the solutions (folded until the reader opens
them), the quiz with its section's heading and sentence, the bibliography, and what
the build adds around the text (the headings' ``#`` anchors, the slides links). An
inline formula is one word however KaTeX writes it (its MathML and its HTML both
hold its symbols), a reference is the text it shows ("Fig. 2.1", a section's
title), and a token without a letter or a digit ("—", "=") is no word.

Run by hand to print the counts of an edition's pages, and the caps where a page has one::

    python -m booktools page-words _build/html/en [page ...]

The caps are each page's ``words`` in ``chapters/pages.yml`` (``booktools.sources.page_manifest``), a bar
whose values are the pages' own (``booktools.configuration.bars.BARS``); ``tests/book/test_page_words.py`` holds
the English pages to them.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from bs4 import Tag
from bs4.element import NavigableString

from booktools.configuration.schema import ConfigError
from booktools.project import Project
from booktools.sources.frameworks import FRAMEWORKS
from booktools.sources.page_manifest import word_caps
from booktools.sources.quizzes import QUIZ_TAG
from booktools.website.built_pages import SLIDES_LINK_ID, TAB_SET, BuiltPageError, page_article, tab_content

LEFT_OUT = (
    "pre",  # code, outputs and literal blocks
    "div.cell",  # a code cell: its code and its outputs (the quiz's widget is one)
    "div.math",  # display math
    "div.solution",  # a folded solution, its title included
    "div.citation-list",  # the bibliography
    "label.sd-tab-label",  # a tab's name
    "a.headerlink",  # a heading's or a caption's "#" anchor
    f"p.{SLIDES_LINK_ID}",  # "Slides: PyTorch · JAX · TensorFlow", added by the build
    "script",
    "style",
)
INLINE_MATH = "span.math"
QUIZ_CELL = f"div.cell.tag_{QUIZ_TAG}"
# Elements that end a run of text: their text never runs on into the next element's.
BLOCKS = ["p", "li", "dt", "dd", "h1", "h2", "h3", "h4", "h5", "h6", "figcaption", "caption", "td", "th", "div"]
WORD = re.compile(r"[^\W_]")  # a token is a word if it holds a letter or a digit


def show_tab(article: Tag, framework: str, page: str) -> None:
    """Replace each framework tab set of ``article`` by the content of ``framework``'s tab.

    Raises:
        BuiltPageError: if a tab set lacks that framework's tab.
    """
    while (tabs := article.select_one(TAB_SET)) is not None:
        content = tab_content(tabs, framework)
        if content is None:
            raise BuiltPageError(f"{page}.html: a tab set without a {framework} tab")
        tabs.replace_with(*list(content.contents))


def reader_text(article: Tag) -> str:
    """Return the text of ``article`` (one framework's tab shown) that the count reads, blocks apart."""
    for quiz in article.select(QUIZ_CELL):
        section = quiz.find_parent("section")
        (section if isinstance(section, Tag) else quiz).decompose()
    for element in article.select(", ".join(LEFT_OUT)):
        if not element.decomposed:
            element.decompose()
    for formula in article.select(INLINE_MATH):
        formula.replace_with(NavigableString(" formula "))
    for block in article.find_all(BLOCKS):
        block.insert_before(NavigableString(" "))
        block.append(NavigableString(" "))
    return article.get_text()


def count_words(text: str) -> int:
    """Return the number of whitespace-separated tokens of ``text`` that hold a letter or a digit."""
    return sum(1 for token in text.split() if WORD.search(token))


def page_words(html: str, page: str) -> dict[str, int]:
    """Return the words of a built page in each framework's tab, by framework name.

    Raises:
        BuiltPageError: if the page has no article, or a tab set lacks a framework's tab.
    """
    counts = {}
    for framework in FRAMEWORKS:
        article = page_article(html, page)  # a fresh copy: each framework's count removes the others
        show_tab(article, framework.name, page)
        counts[framework.name] = count_words(reader_text(article))
    return counts


def edition_words(folder: Path, pages: list[str]) -> dict[str, dict[str, int]]:
    """Return ``page_words`` of each of ``pages`` of the built edition in ``folder``.

    Raises:
        BuiltPageError: if a page was not built, or lacks its article or a framework's tab.
    """
    counts = {}
    for page in pages:
        path = folder / f"{page}.html"
        if not path.is_file():
            raise BuiltPageError(f"{path} does not exist: build the site first (make book)")
        counts[page] = page_words(path.read_text(encoding="utf-8"), page)
    return counts


def report(counts: dict[str, dict[str, int]], caps: dict[str, int]) -> str:
    """Return a table of the counts: a line per page, a column per framework, and the page's cap in ``caps``."""
    header = ["page", *(framework.label for framework in FRAMEWORKS), "cap"]
    rows = [header]
    for page, by_framework in counts.items():
        cap = caps.get(page)
        cells = [f"{by_framework[f.name]:,}" + ("!" if cap and by_framework[f.name] > cap else "") for f in FRAMEWORKS]
        rows.append([page, *cells, f"{cap:,}" if cap else "-"])
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    lines = [
        "  ".join(cell.ljust(w) if i == 0 else cell.rjust(w) for i, (cell, w) in enumerate(zip(row, widths)))
        for row in rows
    ]
    return "\n".join(lines) + "\n(! over the cap)"


def run(project: Project, folder: Path, pages: list[str]) -> int:
    """Print the words of ``pages`` (every page of ``_toc.yml`` if none) of the built edition in ``folder``.

    Returns 0, or 1 if a page was not built or ``chapters/pages.yml`` is amiss (said on stderr).
    """
    try:
        counts = edition_words(folder, pages or project.page_names())
        caps = word_caps(project)
    except (BuiltPageError, ConfigError) as error:
        print(f"page-words: {error}", file=sys.stderr)
        return 1
    print(report(counts, caps))
    return 0
