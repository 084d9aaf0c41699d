"""The theme's own words in the edition's language, where the themes leave them in English.

pydata-sphinx-theme, sphinx-book-theme and sphinx-exercise translate their labels through
gettext catalogs, and some labels have no Korean or Indonesian translation there: the
colour-mode button ("Color mode", "Light", "Dark", "System Settings"), the navigation
buttons' names ("Site navigation", "On this page"), "Back to top", "Skip to main content",
the launch button's tooltip, an image's "logo"; and some have one the edition does not use
(sphinx-exercise's Korean "해답" where the book says 풀이). Each edition gives its words in
``strings.yml`` (``theme_words``: English label → the edition's words), and they win over a
catalog's own. They are installed when the configuration is read, before sphinx-exercise
writes "Exercise" into its number format; the templates' own translator is replaced by
that catalog once the builder has made it (Jinja's ``install_gettext_translations``); and the
field names of the API page ("Returns"), which Sphinx translates when it loads the Python
domain, before any edition's words are known, are written again. Two more words are not in a catalog:
sphinxcontrib-bibtex writes "n.d." (no date) for a cited work without a year and "et al."
in a citation of three or more authors; an edition that lists them gets its own.
The footer's author line is the edition's ``footer_author`` (``templates/author.html``): the
theme's Korean "By" comes out as a particle.

Settings (``booktools.website.sphinx_settings.BookSettings``): ``theme_words``,
``footer_author``.
"""

from __future__ import annotations

import gettext
import weakref
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.config import Config
from sphinx.locale import translators

from booktools.website.sphinx_settings import settings, settings_of

# pydata-sphinx-theme's words are in Sphinx's own catalog; sphinx-book-theme's and sphinx-exercise's in theirs
THEME_CATALOGS = ("sphinx", "booktheme", "exercise")
# Sphinx's own catalog as it was before the edition's words went in front, per build
SPHINX_CATALOG_BEFORE: weakref.WeakKeyDictionary[Sphinx, gettext.NullTranslations] = weakref.WeakKeyDictionary()


class EditionWords(gettext.NullTranslations):
    """The edition's words for labels; any other message goes to the catalog behind it."""

    def __init__(self, words: dict[str, str]) -> None:
        super().__init__()
        self.words = words

    def gettext(self, message: str) -> str:
        return self.words[message] if message in self.words else super().gettext(message)


def add_edition_words(app: Sphinx, config: Config) -> None:
    """Put the edition's ``theme_words`` in front of each theme catalog.

    A catalog is looked up by name at each translation (``sphinx.locale.get_translation``),
    so the edition's words go in front of it. The templates hold Sphinx's own catalog object
    (installed in Jinja), so that one gets the words behind it too: they are the words it lacks.
    """
    words = dict(settings_of(config).theme_words)
    if not words:
        return
    for catalog in THEME_CATALOGS:
        key = ("general", catalog)
        behind = translators.get(key)
        if behind is None:
            continue  # the extension that owns it is not loaded
        front = EditionWords(words)
        front.add_fallback(behind)
        translators[key] = front
        if catalog == "sphinx":
            SPHINX_CATALOG_BEFORE[app] = behind  # what Sphinx translated with before (field names)


def use_edition_words_in_templates(app: Sphinx) -> None:
    """Give the templates' ``_()`` and ``{% trans %}`` the catalog with the edition's words in front."""
    templates = getattr(app.builder, "templates", None)
    environment = getattr(templates, "environment", None)
    if environment is not None and settings(app).theme_words:
        environment.install_gettext_translations(translators[("general", "sphinx")], newstyle=True)


def translate_field_names(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    """Write the field names Sphinx translated at import ("Returns" as the catalog has it) in the edition's words."""
    behind = SPHINX_CATALOG_BEFORE.get(app)
    words = settings(app).theme_words
    if behind is None or not words:
        return
    as_translated = {behind.gettext(english): mine for english, mine in words.items()}
    for name in list(doctree.findall(nodes.field_name)):
        for text in list(name.findall(nodes.Text)):
            if text.astext() in as_translated:
                text.parent.replace(text, nodes.Text(as_translated[text.astext()]))


# Words sphinxcontrib-bibtex writes itself (style/template.py): a year for a work without one, and the
# "et al." of a citation of three or more authors.
CITATION_WORDS = ("n.d.", "et al.")


def translate_citation_words(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    """Write "n.d." and "et al." in citations and the bibliography in the edition's words, where it gives them."""
    words = {word: mine for word, mine in settings(app).theme_words.items() if word in CITATION_WORDS}
    if not words:
        return
    for text in list(doctree.findall(nodes.Text)):
        inside = any(isinstance(node, (nodes.reference, nodes.citation)) for node in _ancestors(text))
        written = text.astext()
        if inside and any(word in written for word in words):
            for word, mine in words.items():
                written = written.replace(word, mine)
            text.parent.replace(text, nodes.Text(written))


def _ancestors(node: nodes.Node) -> list[nodes.Node]:
    found = []
    while node.parent is not None:
        node = node.parent
        found.append(node)
    return found


def add_footer_author(app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: Any) -> None:
    """Give ``templates/author.html`` the edition's author line."""
    context["book_footer_author"] = settings(app).footer_author


def setup_theme_words(app: Sphinx) -> None:
    """Add the words once the themes' catalogs are loaded."""
    app.connect("config-inited", add_edition_words, priority=100)  # before sphinx-exercise's numfig format
    app.connect("html-page-context", add_footer_author)
    app.connect("doctree-resolved", translate_citation_words)
    app.connect("doctree-resolved", translate_field_names)
    app.connect("builder-inited", use_edition_words_in_templates)
