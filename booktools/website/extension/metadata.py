"""What search engines and link previews read in a page's head: description, language alternates, og:*.

Every page of an edition gets, from ``templates/page-metadata.html``:

- ``<meta name="description">``: the page's front matter ``description`` if it has
  one, else the start of its first paragraphs, in the edition's language, as
  plain text: no markup, and no TeX (a formula ends the description before it
  where whole sentences before it say enough, else it is written without its
  TeX commands), shortened at a sentence or word to at most ``DESCRIPTION_LENGTH``
  characters. Pages without a doctree of their own (search, general index) and
  pages without prose get the edition's root page's;
- ``<link rel="alternate" hreflang>`` to the same page in every edition, itself
  included, and ``x-default``, all absolute (``booktools.website.site_url``);
- ``og:locale`` and ``og:locale:alternate``, the editions' ``locale`` in ``_config.yml``.

sphinxext-opengraph writes og:title, og:type, og:url, og:site_name, og:image and
og:image:alt from the settings ``booktools.website.site_url`` derives, and
og:description from the description above, given to it as the page's
``og:description`` field (its per-page override, as a ``:og:description:`` field
would), because its own takes the whole page's text, TeX included, cut inside a
word. It skips pages without a doctree; for those (search, general index) this
module calls it with an empty one. Sphinx writes the canonical link from
``html_baseurl``.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from typing import Any

from docutils import nodes
from docutils.utils import new_document
from sphinx.application import Sphinx
from sphinx.locale import _ as sphinx_translation

from booktools.website import site_url
from booktools.website.sphinx_settings import settings

TEMPLATE = "page-metadata.html"
# The titles the templates of the pages without a doctree give them (Sphinx's basic theme).
TEMPLATE_TITLES = {"genindex": "Index", "search": "Search"}
DESCRIPTION_LENGTH = 160  # what search results show of a description
# Stands for each formula while a description is chosen (see page_description).
FORMULA = "\ufffc"
# Where a paragraph's text is not the page's prose.
NOT_PROSE = (
    nodes.container,  # code cells, their outputs, framework tabs
    nodes.Admonition,
    nodes.raw,
    nodes.table,
    nodes.footnote,
    nodes.citation,
    nodes.figure,
    nodes.sidebar,
    nodes.topic,
    nodes.field_list,
    nodes.Invisible,
)
# Inline nodes whose text is not read: footnote numbers, raw HTML, images, targets.
NOT_TEXT = (nodes.footnote_reference, nodes.raw, nodes.image, nodes.Invisible)
SENTENCE_END = re.compile(r"[.!?。](?=\s|$)")
TEX_COMMAND = re.compile(r"\\[A-Za-z]+\*?|\\.")
TEX_WORDS = {r"\ldots": "…", r"\dots": "…", r"\cdots": "…", r"\times": "×", r"\top": "ᵀ"}


def prose_paragraphs(doctree: nodes.Node) -> Iterator[nodes.paragraph]:
    """Yield the page's paragraphs of prose, in order (not code, outputs, notes, tables or captions)."""
    for paragraph in doctree.findall(nodes.paragraph):
        parent = paragraph.parent
        while parent is not None and not isinstance(parent, NOT_PROSE):
            parent = parent.parent
        if parent is None:
            yield paragraph


def plain_tex(tex: str) -> str:
    """Return a formula's TeX as plain text: ``a(\\mathbf{q}, \\mathbf{k}_i)`` -> ``a(q, ki)``."""
    for command, text in TEX_WORDS.items():
        tex = tex.replace(command, text)
    return " ".join(re.sub(r"[{}_^$]", "", TEX_COMMAND.sub("", tex)).split())


def paragraph_text(paragraph: nodes.paragraph) -> str:
    """Return the text of a paragraph, each formula as its TeX between two ``FORMULA`` marks."""
    parts: list[str] = []

    def read(node: nodes.Node) -> None:
        if isinstance(node, NOT_TEXT):
            return
        if isinstance(node, nodes.math):
            parts.append(f"{FORMULA}{node.astext()}{FORMULA}")
        elif isinstance(node, nodes.Text):
            parts.append(node.astext())
        else:
            for child in node.children:
                read(child)

    read(paragraph)
    return " ".join("".join(parts).split())


def shorten(text: str, limit: int = DESCRIPTION_LENGTH) -> str:
    """Return ``text`` if it fits in ``limit`` characters, else its start: whole sentences, or words and "…"."""
    if len(text) <= limit:
        return text
    ends = [end.end() for end in SENTENCE_END.finditer(text) if end.end() <= limit]
    if ends and ends[-1] >= limit // 2:
        return text[: ends[-1]]
    space = text.rfind(" ", 0, limit)
    head = text[:space] if space >= limit // 2 else text[: limit - 1]  # scripts without spaces: cut anywhere
    return head.rstrip(" ,;:–—-(") + "…"


def page_description(doctree: nodes.Node, limit: int = DESCRIPTION_LENGTH) -> str:
    """Return a page's description: the start of its prose, plain text, at most ``limit`` characters ("" if none)."""
    text = ""
    for paragraph in prose_paragraphs(doctree):
        text = f"{text} {paragraph_text(paragraph)}".strip()
        if len(text.replace(FORMULA, "")) > limit:
            break
    if FORMULA in text:
        before = text[: text.index(FORMULA)]
        ends = [end.end() for end in SENTENCE_END.finditer(before)]
        if ends and ends[-1] >= limit // 2:
            text = before[: ends[-1]]
        else:
            text = re.sub(f"{FORMULA}([^{FORMULA}]*){FORMULA}", lambda formula: plain_tex(formula.group(1)), text)
    return shorten(" ".join(text.split()), limit)


def root_description(app: Sphinx) -> str:
    """Return the description of the edition's root page."""
    return page_description(app.env.get_and_resolve_doctree(app.config.root_doc, app.builder))


def description_of(app: Sphinx, context: dict[str, Any], doctree: nodes.document | None) -> str:
    """Return the description of the page being written: its front matter's, its prose's, or the root page's."""
    given = str((context.get("meta") or {}).get("description") or "").strip()
    if given:
        return given
    return (page_description(doctree) if doctree is not None else "") or root_description(app)


def add_page_metadata(
    app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: nodes.document | None
) -> None:
    """Add the description, the hreflang alternates and og:locale to the page's head (see the module docstring).

    Runs before sphinxext-opengraph, which then finds the description and uses it.
    """
    book = settings(app)
    if app.builder.format != "html" or not book.editions:
        return
    description = description_of(app, context, doctree)
    # sphinxext-opengraph writes fields as they are, escaping only quotes.
    context["meta"] = {**(context.get("meta") or {}), "og:description": html.escape(description, quote=False)}
    current = next(edition for edition in book.editions if edition.code == book.edition)
    root = app.builder.get_target_uri(app.config.root_doc)
    links = site_url.alternates(
        book.site_url, [edition.code for edition in book.editions], app.builder.get_target_uri(pagename), root
    )
    tags = app.builder.templates.render(
        TEMPLATE,
        {
            "description": description,
            "locale": current.locale,
            "other_locales": [edition.locale for edition in book.editions if edition is not current],
            "alternates": links,
        },
    )
    context["metatags"] = context.get("metatags", "") + tags.strip() + "\n"


def add_open_graph_without_doctree(
    app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: nodes.document | None
) -> None:
    """Give the pages sphinxext-opengraph skips, those without a doctree (search, general index), its tags."""
    if app.builder.format != "html" or doctree is not None or not settings(app).editions:
        return
    from sphinxext.opengraph import get_tags

    # Their templates set their titles after this event: a domain index's is its indextitle, the others' are
    # their words in Sphinx's catalog ("Index", "Search").
    title = (
        context.get("title")
        or context.get("indextitle")
        or str(sphinx_translation(TEMPLATE_TITLES.get(pagename, pagename)))
    )
    tags = get_tags(
        {**context, "title": title},
        new_document(pagename),
        srcdir=app.srcdir,
        outdir=app.outdir,
        config=app.config,
        builder=app.builder,
        env=app.env,
    )
    context["metatags"] = context.get("metatags", "") + tags


def setup_metadata(app: Sphinx) -> None:
    """Register the page-context handlers, around sphinxext-opengraph's (priority 500)."""
    app.connect("html-page-context", add_page_metadata, priority=450)
    app.connect("html-page-context", add_open_graph_without_doctree, priority=550)
