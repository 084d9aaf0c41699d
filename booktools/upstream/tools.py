"""The registry: each tool whose insides ``booktools`` depends on, the release its couplings were written for,
and where they are (the rule for what counts: ``booktools.upstream``)."""

from __future__ import annotations

from dataclasses import dataclass

REGISTRY = "booktools/upstream/tools.py"  # where a release is changed, as the messages name it
REQUIREMENTS = "requirements.txt"  # the book's environment's pins
SLIDES_REQUIREMENTS = "booktools/slides/requirements.txt"  # d2lbook's isolated environment's pins
NOT_INSTALLED = "not installed"


@dataclass(frozen=True)
class Place:
    """Where ``booktools`` depends on a tool's insides: a file under ``booktools/``, and on what."""

    path: str  # "website/extension/a11y.py"
    what: str  # "myst_nb.sphinx_.HideCodeCellNode, imported by name"


@dataclass(frozen=True)
class Upstream:
    """A tool, the release the couplings to it were written for, its import names, and where they are."""

    distribution: str  # as the requirements file spells it
    release: str
    modules: tuple[str, ...]  # the names the tool is imported by ("sphinxcontrib.katex")
    places: tuple[Place, ...]
    requirements: str = REQUIREMENTS  # the file that pins it, and so the environment it is installed in

    def place_list(self) -> str:
        """The places, for a message: ``booktools/website/extension/a11y.py (what), ...``."""
        return ", ".join(f"booktools/{place.path} ({place.what})" for place in self.places)


UPSTREAM = (
    Upstream(
        "pydata-sphinx-theme",
        "0.17.1",
        ("pydata_sphinx_theme",),
        (
            Place("website/extension/templates/layout.html", "tab stops, colour mode"),
            Place(
                "website/extension/templates/static/webpack-macros.html",
                "overrides its template; digest read by website/extension/theme_digest.py",
            ),
            Place("website/extension/templates/search.html", "overrides its template"),
            Place("website/extension/templates/search-button-field.html", "overrides its component"),
            Place("website/extension/templates/theme-switcher.html", "overrides its component"),
            Place("website/extension/icons.py", "its fontawesome.js"),
            Place("website/extension/icon_font.py", "its Font Awesome web fonts"),
            Place("website/extension/pdf_links.py", "pydata_sphinx_theme.utils.get_theme_options_dict"),
            Place("website/extension/a11y.py", "its focus ring, its markup"),
            Place("website/extension/stylesheets.py", "its stylesheets"),
            Place("website/extension/tab_stops.py", "its tab stops on scrolling blocks"),
            Place(
                "website/extension/switcher.py",
                "html-page-context priority 400, before its 500 drops header templates that render empty",
            ),
            Place(
                "website/built_pages.py",
                "its article markup (article.bd-article), which the PDFs and word counts read",
            ),
        ),
    ),
    Upstream(
        "sphinx-book-theme",
        "1.3.0",
        ("sphinx_book_theme",),
        (
            Place("website/extension/templates/layout.html", "overrides its template"),
            Place("website/extension/templates/author.html", "overrides its component"),
            Place("website/extension/templates/sbt-sidebar-nav.html", "overrides its component"),
            Place("website/extension/templates/toggle-primary-sidebar.html", "overrides its component"),
            Place("website/extension/templates/toggle-secondary-sidebar.html", "overrides its component"),
            Place(
                "website/extension/search_box.py",
                "its catalog booktheme, its search text; html-page-context priority 600, after its 500",
            ),
            Place("website/extension/theme_words.py", "its catalog"),
            Place("website/extension/pdf_links.py", "html-page-context priority 502, after its header buttons' 501"),
        ),
    ),
    Upstream(
        "Sphinx",
        "7.4.7",
        ("sphinx",),
        (
            Place("website/extension/theme_words.py", "sphinx.locale.translators"),
            Place("website/extension/katex_math.py", "HTML5Translator, sphinx.util.math.get_node_equation_number"),
            Place(
                "website/extension/loading.py",
                "the assets' class, the basic theme's documentation_options.js.jinja",
            ),
            Place(
                "website/extension/warning_file.py",
                "sphinx.util.logging NAMESPACE and WarningStreamHandler, sphinx.util.console.strip_escape_sequences",
            ),
            Place("website/extension/search.py", "sphinx.search.en.SearchEnglish"),
        ),
    ),
    Upstream(
        "sphinxcontrib-katex",
        "0.9.11",
        ("sphinxcontrib.katex",),
        (
            Place("website/extension/katex_server.py", "KaTeXServer"),
            Place("website/extension/katex_math.py", "render_latex, KaTeXError"),
        ),
    ),
    Upstream(
        "myst-nb",
        "1.4.0",
        ("myst_nb",),
        (
            Place(
                "website/extension/a11y.py",
                "myst_nb.sphinx_.HideCodeCellNode, imported by name, its HTML visitors overridden",
            ),
        ),
    ),
    Upstream(
        "myst-parser",
        "3.0.1",
        ("myst_parser",),
        (
            Place(
                "sources/myst.py",
                "myst_parser.parsers.mdit.create_md_parser and MdParserConfig, its markdown-it set-up",
            ),
        ),
    ),
    Upstream(
        "sphinx_design",
        "0.8.0",
        ("sphinx_design",),
        (
            Place(
                "website/extension/tabs.py",
                "sphinx_design.shared.create_component, its tab set's nodes and classes",
            ),
            Place("website/built_pages.py", "its tab set's HTML: sd-tab-content, data-sync-id"),
        ),
    ),
    Upstream(
        "sphinx-thebe",
        "0.3.1",
        ("sphinx_thebe",),
        (
            Place(
                "website/extension/live.py",
                "its asset names sphinx-thebe.js and .css, the markers of its page settings; "
                "doctree-resolved priority 600 and html-page-context priority 400, around its 500",
            ),
        ),
    ),
    Upstream(
        "docutils",
        "0.21.2",
        ("docutils",),
        (Place("website/extension/a11y.py", "the HTML visitors of nodes.citation overridden"),),
    ),
    Upstream(
        "sphinxext-opengraph",
        "0.13.0",
        ("sphinxext.opengraph",),
        (
            Place(
                "website/extension/metadata.py",
                "sphinxext.opengraph.get_tags; html-page-context priority 450 and priority 550, around its 500",
            ),
        ),
    ),
    Upstream(
        "sphinx_external_toc",
        "1.1.0",
        ("sphinx_external_toc",),
        (
            Place(
                "website/editions.py",
                "sphinx_external_toc.api's classes, sphinx_external_toc.parsing.parse_toc_yaml and create_toc_dict",
            ),
        ),
    ),
    Upstream(
        "jupyter-book",
        "1.0.4.post1",
        ("jupyter_book",),
        (Place("website/jupyter_book.py", "jupyter_book.config.validate_yaml"),),
    ),
    # Extensions the configuration loads by name, whose output or files the site's code names in strings:
    Upstream(
        "sphinx-copybutton",
        "0.5.2",
        ("sphinx_copybutton",),
        (Place("website/extension/loading.py", "its scripts' file names, loaded on demand"),),
    ),
    Upstream(
        "sphinx-togglebutton",
        "0.4.5",
        ("sphinx_togglebutton",),
        (Place("website/extension/static/book.css", "its folded solutions' classes, open without JavaScript"),),
    ),
    Upstream(
        "sphinx-exercise",
        "1.2.1",
        ("sphinx_exercise",),
        (
            Place(
                "website/extension/theme_words.py",
                "its gettext catalog, its numfig format; config-inited priority 100, before its own",
            ),
        ),
    ),
    Upstream(
        "sphinx-sitemap",
        "2.9.0",
        ("sphinx_sitemap",),
        (Place("website/sitemap.py", "its sitemap.xml, merged"), Place("website/site_url.py", "its settings")),
    ),
    Upstream(
        "sphinxcontrib-bibtex",
        "2.7.0",
        ("sphinxcontrib.bibtex",),
        (Place("website/extension/theme_words.py", "the words its style writes (n.d., et al.)"),),
    ),
    # The tests' and the slides' tools:
    Upstream(
        "nbval",
        "0.11.0",
        ("nbval",),
        (
            Place(
                "checks/nbval_plugin.py",
                "nbval.plugin.IPyNbCell.compare_outputs replaced, its signature and the cell's attributes",
            ),
        ),
    ),
    Upstream(
        "d2lbook",
        "1.0.3",
        ("d2lbook",),
        (Place("slides/d2lbook_run.py", "d2lbook.slides.Slides.generate, d2lbook.config.Config"),),
        requirements=SLIDES_REQUIREMENTS,
    ),
)
# The documented extension API (module -> names), which needs no place: see the module's docstring.
PUBLIC_API = {
    "sphinx.application": ("Sphinx",),
    "sphinx.config": ("Config",),
    "sphinx.errors": ("ExtensionError",),
    "sphinx.transforms": ("SphinxTransform",),
    "sphinx.locale": ("_", "get_translation"),
    "sphinx.util": ("logging",),
    "docutils": ("nodes",),
    "docutils.utils": ("new_document",),
}
