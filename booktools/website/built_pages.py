"""Reading a page of the built site: its article, its framework tab sets, what the build adds.

The PDFs (``booktools.pdf.document``) and the word counts (``booktools.checks.page_words``)
both read the pages as built (``_build/html/<lang>/<page>.html``), not their sources.
What they find there is written by the site's build: the theme's article, the
framework tab sets of ``booktools.website.extension.tabs`` and the slides link of
``booktools.website.edition_copy``. This module is the one place that says how to find them.
"""

from __future__ import annotations

from bs4 import BeautifulSoup, Tag

__all__ = ["SLIDES_LINK_ID", "TAB_SET", "TAB_SET_CLASS", "BuiltPageError", "page_article", "tab_content"]

# pydata-sphinx-theme's article: the page's own content, without the site around it.
ARTICLE_START, ARTICLE_END = '<article class="bd-article"', "</article>"
TAB_SET_CLASS = "d2l-framework-tabs"  # a group of framework cells as tabs (booktools.website.extension.tabs)
TAB_SET = f"div.{TAB_SET_CLASS}"
SLIDES_LINK_ID = "d2l-slides-link"  # the paragraph linking a page's decks (booktools.website.edition_copy)


class BuiltPageError(ValueError):
    """A built page lacks what a reader of it needs (its article, a framework's tab)."""


def page_article(html: str, page: str) -> Tag:
    """Return the article of a built page (only the article is parsed: the rest is the site's).

    Raises:
        BuiltPageError: if the page has no ``article.bd-article``.
    """
    start, end = html.find(ARTICLE_START), html.rfind(ARTICLE_END)
    article = BeautifulSoup(html[start : end + len(ARTICLE_END)], "html.parser").article if 0 <= start < end else None
    if article is None:
        raise BuiltPageError(f"{page}.html has no <article class='bd-article'>")
    return article


def tab_content(tabs: Tag, framework: str) -> Tag | None:
    """Return the content of ``framework``'s tab (its name, ``"jax"``) in the tab set ``tabs``; None if it has none."""
    label = tabs.find("label", attrs={"data-sync-id": framework})
    content = label.find_next_sibling(class_="sd-tab-content") if isinstance(label, Tag) else None
    return content if isinstance(content, Tag) else None
