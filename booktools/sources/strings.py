"""The interface strings of each edition: ``chapters/<lang>/strings.yml``, one file per edition.

Everything the site itself says around the pages (the buttons of the code cells,
the Live code button and its messages, the link to the slides, the API page's
title and introduction, the PDFs' links, cover and contents), how it writes a number (the
figures measured by the pages' code, quoted in their prose), and the instructor's README of ``make assignment``, is
in its edition's file, English included, and nowhere else. A file that lacks a
string, or has one the schema does not know, fails the build (and ``make
assignment``) naming the file and the key (``booktools.configuration.schema``): no
edition silently falls back to English. The strings of the library itself (the quiz's
controls) ship with ``d2l_lib`` as package data (``d2l_lib/messages/<lang>.json``),
so that a notebook in Colab has them too; ``booktools.sources.library_messages`` checks them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from booktools.configuration.schema import load
from booktools.project import Project

__all__ = [
    "ApiStrings",
    "AssignmentStrings",
    "EditionStrings",
    "LiveStrings",
    "NumberStrings",
    "PdfStrings",
    "load_strings",
]


@dataclass(frozen=True)
class LiveStrings:
    """The Live code button and its status messages (``booktools.website.extension.live``)."""

    button: str
    button_title: str
    starting: str  # {framework}
    ready: str  # {framework}
    running: str
    done: str  # {framework}
    failed: str  # {error}
    no_server: str
    other_framework: str  # {framework}
    run: str
    run_label: str  # {number}
    run_all: str
    restart: str
    editor: str  # {number}
    output: str  # {number}


@dataclass(frozen=True)
class ApiStrings:
    """The API reference page (``booktools.website.api_page``)."""

    title: str
    introduction: str
    defined_in: str


@dataclass(frozen=True)
class PdfStrings:
    """The book as a PDF per framework (``booktools.pdf``) and its links on every page."""

    menu: str  # the download menu's name on a page that has no download menu of its own (search)
    link: str  # {framework}: the link's text in the page's download menu
    link_title: str  # {framework}: the link's tooltip
    code_in: str  # {framework}: the PDF's cover says whose code it holds
    contents: str  # the heading of the PDF's table of contents


@dataclass(frozen=True)
class AssignmentStrings:
    """The instructor's README of the assignments (``booktools.derive.assignments``), markdown."""

    title: str
    introduction: str
    files_heading: str
    release: str  # what release/ holds
    source: str  # what source/ holds
    hand_out_heading: str
    hand_out: str
    nbgrader_heading: str
    nbgrader: str
    grading_heading: str
    grading: str
    honesty_heading: str
    honesty: str  # {names}: the library's reference solutions
    pages_heading: str
    no_pages: str


def _separator(value: str) -> str:
    """Check that a number separator is one character that is neither a digit nor a sign."""
    if len(value) != 1 or value.isdigit() or value in "+-":
        raise ValueError(f"expected one character that is not a digit or a sign, got {value!r}")
    return value


@dataclass(frozen=True)
class NumberStrings:
    """How the edition writes a number: the measured figures its prose quotes (``booktools.sources.measured``)."""

    decimal: str = field(metadata={"check": _separator})  # the decimal mark: "." in 3.5, "," in 3,5
    thousands: str = field(metadata={"check": _separator})  # between groups of three digits: "," in 1,234


@dataclass(frozen=True)
class EditionStrings:
    """Every interface string of one edition."""

    code_prompt_show: str  # myst-nb's button on a collapsed code cell ({type} may name what it hides)
    code_prompt_hide: str
    toggle_hint: str  # sphinx-togglebutton's hint on a collapsed solution
    toggle_hint_hide: str
    slides: str  # "Slides": the link on every page, the landing page and the decks' index
    footer_author: str  # the footer's author line ("By The d2l-attention book team")
    # labels the themes (and sphinx-exercise, sphinxcontrib-bibtex's "n.d.") leave in English, or in
    # other words than the edition's: English label -> the edition's words (booktools.website.extension.theme_words)
    theme_words: dict[str, str]
    numbers: NumberStrings
    api: ApiStrings
    live: LiveStrings
    pdf: PdfStrings
    assignment: AssignmentStrings


def load_strings(project: Project, language: str) -> EditionStrings:
    """Read and validate the interface strings of edition ``language``.

    Raises:
        booktools.configuration.schema.ConfigError: if the file is missing, or lacks or misspells a key.
    """
    path = project.strings_file(language)
    return load(path, EditionStrings, project.relative(path))
