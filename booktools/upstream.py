"""Every place where ``booktools`` depends on another tool's insides, and the release it was written for.

Some tools offer no hook for what the book needs: the site overrides templates of two
themes and reaches into Sphinx, docutils and Sphinx extensions; the sources parse
MyST with myst-parser's own parser and read ``_toc.yml`` with sphinx-external-toc's;
the tests replace a method of nbval; the slides run d2lbook's generator. Each such
coupling holds for the release series it was written against (``0.17`` of ``0.17.1``).
:data:`UPSTREAM` lists each tool with that release and its places (paths under
``booktools/``), and :func:`problems` says, in one message format, which installed
releases are of another series. The guards that use it, each before the first coupling
of its tool can run:

- ``booktools.website.build``: before it starts any ``jupyter-book build``;
- ``booktools.website.extension``: first thing when the extension is imported (before
  its modules import a tool's insides), and again first of every ``config-inited``
  handler (``booktools.website.extension.upstream_check``);
- ``booktools.checks.nbval_plugin``: before it replaces nbval's comparison.

A patch release of the same series passes. ``requirements.txt`` (for d2lbook,
``booktools/slides/requirements.txt``) pins the exact releases the outputs were made
with; ``tests/tooling/test_upstream.py`` holds those pins to the series here. An upgrade
to a new series is: read the places against the new release, then change the release
here and the pin there together.

What counts as a coupling, and so must be a place of its tool:

- an import from a tool listed here, or from a tool of the Sphinx ecosystem (Sphinx,
  docutils, and any distribution that requires one of them: themes, Sphinx extensions,
  Jupyter Book, myst-parser), except the documented extension API in :data:`PUBLIC_API`
  (``sphinx.application.Sphinx``, ``docutils.nodes``, ...);
- a name or module that starts with ``_`` (``_assets``), of any third-party package;
- a module imported by its name as a string (``importlib.import_module``);
- an override of another's registration (``app.add_node(..., override=True)``);
- a replaced attribute of another package (``IPyNbCell.compare_outputs = ...``);
- a template of ``website/extension/templates/`` that has the name of a theme's own
  template: an override of that theme's template (a theme's nearest,
  ``sphinx-book-theme`` before ``pydata-sphinx-theme`` before Sphinx's ``basic``);
- a handler's priority chosen around another tool's handler (``priority=502``, after
  sphinx-book-theme's 501): its place's ``what`` says ``priority 502``;
- and, listed by hand because no parser sees them: a tool's file, asset or CSS class
  the code names in a string (Font Awesome's ``fontawesome.js``, sphinx-thebe's asset
  names, sphinx-design's ``sd-tab-*`` classes, the theme's stylesheets).

``tests/tooling/test_upstream.py`` finds all but the last kind in every module and
template of ``booktools/`` and fails naming any the places do not list, and any place
that no longer exists.

Why a series, even for the couplings that only name a string (a file, a CSS class, a
script): those are the ones nothing else catches. A renamed import fails at once; a
renamed class or file fails no build, and the page just loses what it did (a folded
solution no longer opens without JavaScript, a script no longer loads on demand). The
tools that such strings tie the book to are on ``0.x`` releases (sphinx-copybutton,
sphinx-togglebutton, sphinx-thebe), where a minor release promises nothing, or are
themes whose markup changes with their minor releases. So every tool keeps its series,
and a minor upgrade costs reading its places and changing two numbers.

This module imports nothing but the standard library, so that every layer can use it.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, version

REGISTRY = "booktools/upstream.py"  # where a release is changed, as the messages name it
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
                "overrides its template; digest read by website/extension/upstream_check.py",
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
                "sphinx_external_toc.api's classes, sphinx_external_toc.parsing.create_toc_dict",
            ),
            Place("configuration/toc.py", "sphinx_external_toc.api's SiteMap and Document, walked"),
            Place("project.py", "sphinx_external_toc.parsing.parse_toc_yaml, its SiteMap"),
        ),
    ),
    Upstream(
        "jupyter-book",
        "1.0.4.post1",
        ("jupyter_book",),
        (Place("website/build.py", "jupyter_book.config.validate_yaml"),),
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


class UpstreamChanged(ImportError):
    """An installed tool is not of the series the couplings to its insides were written for.

    An ImportError: the book's code that reaches into the tool cannot be trusted to import
    or to run against it (Sphinx reports one raised while it imports an extension as that
    extension's error, with this message).
    """


def tool(distribution: str) -> Upstream:
    """The tool ``distribution`` of :data:`UPSTREAM`.

    Raises:
        KeyError: if no coupling to it is listed.
    """
    for listed in UPSTREAM:
        if listed.distribution == distribution:
            return listed
    raise KeyError(f"{distribution} is not a tool of {REGISTRY}")


def series(release: str) -> str:
    """A release's series, its first two numbers (``0.17.1`` -> ``0.17``): a patch release of the same series is
    taken to keep the couplings (the requirements file still pins the exact one the outputs were made with)."""
    return ".".join(release.split(".")[:2])


def problem(listed: Upstream, installed: str, changed: str = "") -> str:
    """The one message for a tool whose insides ``booktools`` cannot trust as installed.

    ``changed`` says what differs when the release alone does not (nbval's method of another
    signature); by default, the release is of another series.
    """
    what = changed or f"is {installed}, but booktools was written against {listed.release}"
    return (
        f"{listed.distribution} {what}: check {listed.place_list()}, then change the release in {REGISTRY} "
        f"and the pin in {listed.requirements} together"
    )


def problems(installed: dict[str, str], tools: tuple[Upstream, ...] = UPSTREAM) -> list[str]:
    """Why the couplings to ``tools`` cannot be trusted with the ``installed`` releases (name -> release):
    [] if they can."""
    return [
        problem(listed, installed.get(listed.distribution, NOT_INSTALLED))
        for listed in tools
        if series(installed.get(listed.distribution, "")) != series(listed.release)
    ]


def installed_release(distribution: str) -> str:
    """The release of ``distribution`` installed in the running environment (:data:`NOT_INSTALLED` if none)."""
    try:
        return version(distribution)
    except PackageNotFoundError:
        return NOT_INSTALLED


def environment_tools(requirements: str = REQUIREMENTS) -> tuple[Upstream, ...]:
    """The tools installed in the environment that ``requirements`` describes (the book's, by default)."""
    return tuple(listed for listed in UPSTREAM if listed.requirements == requirements)


def installed_problems(tools: tuple[Upstream, ...] | None = None) -> list[str]:
    """:func:`problems` of ``tools`` (every tool of the running environment, by default) as installed."""
    chosen = environment_tools() if tools is None else tools
    return problems({listed.distribution: installed_release(listed.distribution) for listed in chosen}, chosen)


def require_releases(tools: tuple[Upstream, ...] | None = None) -> None:
    """Stop unless ``tools`` (every tool of the running environment, by default) are of their series.

    Raises:
        UpstreamChanged: naming each tool, its two releases and its places.
    """
    found = installed_problems(tools)
    if found:
        raise UpstreamChanged("\n".join(found))
