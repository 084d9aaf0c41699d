"""The print document of one edition: the built pages' articles as one HTML book.

The PDFs are printed from the site as built, so they show what the reader sees
on the pages (the same typesetting of equations, figures, code and outputs). For
an edition this module joins the article of every page of ``_toc.yml`` into one
document, in reading order, after a cover and a table of contents, and

- marks each framework's code: each tab set ("PyTorch | JAX | TensorFlow",
  ``booktools.website.extension.tabs``) becomes the content of its three tabs, one
  after the other, each marked ``data-pdf-framework="<name>"``, and so does the
  API appendix's section of each framework's module of ``d2l_lib``. The printer
  sets the same attribute on ``<html>`` before printing a framework's PDF
  (``booktools.pdf.printer``), and a rule of the document hides the marked content
  of the other frameworks: one document, typeset once, printed three times;
- drops what only works on the web: the headings' ``#`` anchors, the slides
  links, the quiz's buttons and feedback, the pages' scripts; collapsed code
  cells are shown open;
- makes the document's links its own: every ``id`` gets its page as a prefix
  (``preliminaries--check-shape``), links between the pages become links within
  the document, and a link to a file that is not in it (a figure's full-size
  image) becomes its text;
- keeps the pages' stylesheets but the two of the theme's layout (pydata-sphinx-theme's
  and sphinx-book-theme's: 400 KB of rules for the site's header, sidebars and
  widgets, which tripled the time to print and drew their shadows as images);
  ``print.css`` sets the book's type instead. The math needs no script: the site
  typesets it at build time (KaTeX).

The document is served from the edition's folder of the site, so the pages'
relative paths (``_static/``, ``_images/``) resolve as they do on the pages.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from html import escape
from pathlib import Path
from urllib.parse import urlsplit

from bs4 import BeautifulSoup, Tag

from booktools.project import LIBRARY
from booktools.sources.frameworks import FRAMEWORKS
from booktools.website.built_pages import SLIDES_LINK_ID, TAB_SET, BuiltPageError, page_article, tab_content

PRINT_CSS = Path(__file__).resolve().with_name("print.css")
FRAMEWORK_ATTRIBUTE = "data-pdf-framework"
ID_SEPARATOR = "--"
MODULE_SECTION = f"module-{LIBRARY}."  # the API page's section of one module: module-d2l_lib.torch
THEME_LAYOUT = ("pydata-sphinx-theme.css", "sphinx-book-theme.css")  # stylesheets left out (above)
WEB_ONLY = ("a.headerlink", f"p.{SLIDES_LINK_ID}", ".d2l-quiz button", ".d2l-quiz-feedback", "script", "summary")
ID_REFERENCES = ("for", "aria-controls", "aria-labelledby", "aria-describedby", "headers")
CONTENTS_ID = "pdf-contents"


class DocumentError(BuiltPageError):
    """A built page lacks what its print needs (a framework's tab)."""


@dataclass(frozen=True)
class Cover:
    """What the cover and the table of contents say, in the edition's language."""

    language: str  # "ko"
    title: str  # the edition's title of the book
    author: str
    contents: str  # the table of contents' heading
    code_in: dict[str, str]  # framework name -> "With the code in PyTorch"


def mark_frameworks(article: Tag, page: str) -> None:
    """Replace each framework tab set by its tabs' contents, each marked with its framework; mark the API sections.

    Raises:
        DocumentError: if a tab set lacks a framework's tab.
    """
    soup = BeautifulSoup("", "html.parser")
    while (tabs := article.select_one(TAB_SET)) is not None:
        marked = []
        for framework in FRAMEWORKS:
            content = tab_content(tabs, framework.name)
            if content is None:
                raise DocumentError(f"{page}.html: a tab set without a {framework.label} tab")
            wrapper = soup.new_tag("div", attrs={FRAMEWORK_ATTRIBUTE: framework.name})
            wrapper.extend(list(content.contents))
            marked.append(wrapper)
        tabs.replace_with(*marked)
    for framework in FRAMEWORKS:
        for section in article.select(f'section[id="{MODULE_SECTION}{framework.module}"]'):
            section[FRAMEWORK_ATTRIBUTE] = framework.name


def framework_rules() -> str:
    """Return the rules that show, on ``<html data-pdf-framework="jax">``, the content of no other framework."""
    attribute = FRAMEWORK_ATTRIBUTE
    return "".join(
        f'html[{attribute}="{f.name}"] [{attribute}]:not([{attribute}="{f.name}"]) {{ display: none !important; }}\n'
        for f in FRAMEWORKS
    )


def drop_web_only(article: Tag) -> None:
    """Remove what only works in a browser; open collapsed cells; load every image before printing."""
    for element in article.select(", ".join(WEB_ONLY)):
        element.decompose()
    for details in article.find_all("details"):
        details["open"] = ""
    for image in article.find_all("img"):
        image["loading"] = "eager"


def local_id(page: str, name: str) -> str:
    """Return the document's id of the element ``name`` of ``page`` (the page itself for ``""``)."""
    return f"{page}{ID_SEPARATOR}{name}" if name else page


def link_within(article: Tag, page: str, pages: Iterable[str]) -> None:
    """Prefix every id with its page, and point links between pages at the document itself."""
    in_document = set(pages)
    for element in article.find_all(True):
        if element.get("id"):
            element["id"] = local_id(page, str(element["id"]))
        for attribute in ID_REFERENCES:
            if element.get(attribute):
                element[attribute] = " ".join(local_id(page, name) for name in str(element[attribute]).split())
    for link in article.find_all("a", href=True):
        parts = urlsplit(str(link["href"]))
        if parts.scheme or parts.netloc:
            continue
        target = parts.path.removesuffix(".html") if parts.path else page
        if (parts.path.endswith(".html") or not parts.path) and target in in_document:
            link["href"] = f"#{local_id(target, parts.fragment)}"
        else:
            link.unwrap()


def contents(articles: dict[str, Tag], heading: str) -> str:
    """Return the table of contents: each page's title (``h1``) and its sections (``h2``), linked."""
    items = []
    for page, article in articles.items():
        sections = []
        for h2 in article.find_all("h2"):
            section = h2.find_parent("section")
            if isinstance(section, Tag) and section.get("id"):
                framework = section.get(FRAMEWORK_ATTRIBUTE)
                mark = f' {FRAMEWORK_ATTRIBUTE}="{framework}"' if framework else ""
                sections.append(f'<li{mark}><a href="#{section["id"]}">{h2.decode_contents()}</a></li>')
        h1 = article.find("h1")
        title = h1.decode_contents() if isinstance(h1, Tag) else escape(page)
        nested = f"<ol>{''.join(sections)}</ol>" if sections else ""
        items.append(f'<li><a href="#{page}">{title}</a>{nested}</li>')
    return (
        f'<nav class="pdf-toc" aria-labelledby="{CONTENTS_ID}"><h1 id="{CONTENTS_ID}">{escape(heading)}</h1>'
        f"<ol>{''.join(items)}</ol></nav>"
    )


def cover_page(cover: Cover) -> str:
    """Return the cover: the title, the framework of the PDF (one line per framework, marked) and the author."""
    frameworks = "".join(
        f'<p class="pdf-subtitle" {FRAMEWORK_ATTRIBUTE}="{name}">{escape(line)}</p>'
        for name, line in cover.code_in.items()
    )
    return (
        f'<section class="pdf-cover"><p class="pdf-title">{escape(cover.title)}</p>{frameworks}'
        f'<p class="pdf-author">{escape(cover.author)}</p></section>'
    )


def head_assets(html: str) -> list[str]:
    """Return a built page's stylesheets and styles but the theme's layout (its scripts are web-only)."""
    head = BeautifulSoup(html[: html.find("</head>")], "html.parser")
    kept = []
    for element in head.find_all(["link", "style"]):
        href = urlsplit(str(element.get("href", ""))).path
        is_style = element.name == "style" or (
            "stylesheet" in (element.get("rel") or []) and not href.endswith(THEME_LAYOUT)
        )
        if is_style:
            kept.append(str(element))
    return kept


def print_document(pages: dict[str, str], cover: Cover) -> str:
    """Return the print document of the built ``pages`` of one edition (name -> HTML, in reading order).

    Raises:
        BuiltPageError: if a page lacks its article; DocumentError (one) if it lacks a framework's tab.
    """
    names = list(pages)
    articles = {}
    for page, html in pages.items():
        article = page_article(html, page)
        mark_frameworks(article, page)
        drop_web_only(article)
        link_within(article, page, names)
        article["id"] = page
        article["class"] = "bd-article pdf-page"
        articles[page] = article
    assets = list(dict.fromkeys(asset for html in pages.values() for asset in head_assets(html)))
    style = PRINT_CSS.read_text(encoding="utf-8") + framework_rules()
    body = "".join(str(article) for article in articles.values())
    return (
        f'<!DOCTYPE html><html lang="{cover.language}" data-theme="light" data-mode="light">'
        f'<head><meta charset="utf-8"><title>{escape(cover.title)}</title>{"".join(assets)}'
        f"<style>{style}</style></head>"
        f"<body><main>{cover_page(cover)}{contents(articles, cover.contents)}{body}</main></body></html>"
    )
