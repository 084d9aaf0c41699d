"""The book's paths and configuration: one object, made once and handed to every verb and stage.

``python -m booktools`` makes one :class:`Project` for the checkout it runs in (or the one ``--root`` names)
and passes it to the verb's function. Code that other tools load by name makes its own with
:meth:`Project.here`: the pytest plugin, and the MyST parser, which reads the book's ``parse`` settings. The
Sphinx extensions get what they need as Sphinx settings. Tests make one over a temporary copy. The project's
files and what the book publishes are spelled here and nowhere else; a stage names only the scratch files in its
own work folder (:meth:`Project.work_dir`: ``booktools.website.jupyter_book``'s ``src``, ``booktools.slides.decks``'
``decks``). The reading order is ``_toc.yml``'s, read as plain YAML (``booktools.configuration.toc``); the editions are
``_config.yml``'s (``booktools.configuration.config_file``), each a folder ``chapters/<code>/``.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from booktools.configuration.config_file import SOURCE_LANGUAGE, BookConfig, Edition, configured_editions, parse
from booktools.configuration.schema import ConfigError, read_text, yaml_data
from booktools.configuration.toc import read_reading_order

__all__ = ["ASSIGNMENT_RELEASE", "ASSIGNMENT_SOURCE", "BUILD_INPUTS", "SITE_FILES", "SOURCE_LANGUAGE", "Project"]

CONFIG_FILE = "_config.yml"
TOC_FILE = "_toc.yml"
CHAPTERS = "chapters"
BUILD = "_build"
LIBRARY = "d2l_lib"
NOTEBOOKS = "notebooks"
D2LBOOK_ENV = ".venv-d2lbook"
TOOLS = "booktools"
BIBLIOGRAPHY = "references.bib"


# The files at the root of the built site beside the editions' folders, as paths in the site (hence also the ends
# of their URLs, booktools.website.site_url): the landing page, every page's preview image, the sitemap, robots.txt.
class SiteFiles(NamedTuple):
    """The names of the files at the site's root (``SITE_FILES``)."""

    landing: str
    preview: str
    sitemap: str
    robots: str


SITE_FILES = SiteFiles(landing="index.html", preview="preview.png", sitemap="sitemap.xml", robots="robots.txt")
ASSIGNMENT_RELEASE, ASSIGNMENT_SOURCE = "release", "source"  # an assignment's notebooks: students', nbgrader's
# The books as PDFs, one per edition and framework (``booktools.pdf``), in each edition's site: "<title>-pytorch.pdf".
PDF_FOLDER = "pdf"
# Each edition's lecture slides (``booktools.slides``): in its site, one deck per page and framework.
SLIDES_FOLDER = "slides"
PDF_NAME = "{book}-{framework}.pdf"
DECK_NAME = "{page}-{framework}.html"  # a deck of the slides, one per page and framework
# Folders beside the pages that every edition's site reads as they are (figures).
SHARED_FOLDERS = ("img",)
# What a build of the site reads: a scratch copy of the book needs these, and the site is
# rebuilt when any of them changes. The tools are read whole, so none is forgotten.
BUILD_INPUTS = (CONFIG_FILE, TOC_FILE, BIBLIOGRAPHY, *SHARED_FOLDERS, CHAPTERS, LIBRARY, TOOLS)


def deck_href(page: str, framework: str) -> str:
    """A deck of the slides, from its edition's root: ``slides/<page>-<framework>.html``."""
    return f"{SLIDES_FOLDER}/{DECK_NAME.format(page=page, framework=framework)}"


@functools.lru_cache(maxsize=8)
def _parsed_config(text: str) -> BookConfig:
    # The checks read the configuration once per cell (the MyST extensions it enables): parsing the
    # YAML each time was most of `python -m booktools translations`. BookConfig is frozen.
    return parse(yaml_data(text, CONFIG_FILE))


@dataclass(frozen=True)
class Project:
    """One checkout of the book: where each file is, and what ``_config.yml`` and ``_toc.yml`` say."""

    root: Path

    @classmethod
    def here(cls) -> Project:
        """Return the project this copy of ``booktools`` belongs to (the folder above the package)."""
        return cls(Path(__file__).resolve().parent.parent)

    # -- sources --------------------------------------------------------------

    @property
    def config_file(self) -> Path:
        """``_config.yml``: Jupyter Book's configuration, with the book's ``editions``."""
        return self.root / CONFIG_FILE

    @property
    def toc_file(self) -> Path:
        """``_toc.yml``: the reading order of the English pages."""
        return self.root / TOC_FILE

    @property
    def bibliography(self) -> Path:
        """``references.bib``: the bibliography every edition cites."""
        return self.root / BIBLIOGRAPHY

    @property
    def chapters(self) -> Path:
        """``chapters/``: one folder of source pages per edition, and the book's data files."""
        return self.root / CHAPTERS

    def edition_dir(self, language: str) -> Path:
        """``chapters/<language>/``: the source pages of one edition."""
        return self.chapters / language

    @property
    def glossary_file(self) -> Path:
        """``chapters/glossary.yml``: the translation glossary and style rules."""
        return self.chapters / "glossary.yml"

    @property
    def pages_file(self) -> Path:
        """``chapters/pages.yml``: each page's facts (word cap, quiz), one entry per page of ``_toc.yml``."""
        return self.chapters / "pages.yml"

    @property
    def quiz_keys_file(self) -> Path:
        """``chapters/quizzes.yml``: the quizzes' answer keys, one per page."""
        return self.chapters / "quizzes.yml"

    def alt_text_file(self, language: str) -> Path:
        """``chapters/<language>/alt_text.yml``: one edition's templates for the heatmaps' alt text."""
        return self.edition_dir(language) / "alt_text.yml"

    def strings_file(self, language: str) -> Path:
        """``chapters/<language>/strings.yml``: the interface strings of one edition."""
        return self.edition_dir(language) / "strings.yml"

    def shared_folders(self) -> list[Path]:
        """The folders every edition's site reads as they are (figures), those that exist."""
        return [self.root / name for name in SHARED_FOLDERS if (self.root / name).is_dir()]

    def build_inputs(self) -> list[Path]:
        """Every file and folder a build of the site reads (``BUILD_INPUTS``), those that exist."""
        return [self.root / name for name in BUILD_INPUTS if (self.root / name).exists()]

    # -- derived files --------------------------------------------------------

    @property
    def library_dir(self) -> Path:
        """``d2l_lib/``: the library, generated from the ``#@save`` cells."""
        return self.root / LIBRARY

    @property
    def library_data_dir(self) -> Path:
        """``d2l_lib/quizzes/``: the quizzes' data, one ``<language>.json`` per edition."""
        return self.library_dir / "quizzes"

    def library_messages_file(self, language: str) -> Path:
        """``d2l_lib/messages/<language>.json``: the library's own strings in one edition's language."""
        return self.library_dir / "messages" / f"{language}.json"

    @property
    def notebooks_dir(self) -> Path:
        """``notebooks/``: one derived notebook per page, language and framework."""
        return self.root / NOTEBOOKS

    @property
    def build_dir(self) -> Path:
        """``_build/``: everything a build or a check writes (never tracked)."""
        return self.root / BUILD

    @property
    def site_dir(self) -> Path:
        """``_build/html/``: the built site, one folder per edition."""
        return self.build_dir / "html"

    def edition_site_dir(self, language: str) -> Path:
        """``_build/html/<language>/``: one edition's site, with its slides and PDFs."""
        return self.site_dir / language

    def slides_dir(self, language: str) -> Path:
        """``_build/html/<language>/slides/``: one edition's lecture slides."""
        return self.edition_site_dir(language) / SLIDES_FOLDER

    @property
    def assignments_dir(self) -> Path:
        """``_build/assignments/``: the chapter's exercises as assignments, one folder per edition."""
        return self.build_dir / "assignments"

    def assignment_dir(self, language: str, framework: str, version: str) -> Path:
        """``_build/assignments/<language>/<framework>/<version>/``: ``release`` (students) or ``source`` (nbgrader).

        Raises:
            ValueError: if ``version`` is neither.
        """
        if version not in (ASSIGNMENT_RELEASE, ASSIGNMENT_SOURCE):
            raise ValueError(f"an assignment's version is {ASSIGNMENT_RELEASE} or {ASSIGNMENT_SOURCE}, not {version!r}")
        return self.assignments_dir / language / framework / version

    def assignment_readme(self, language: str) -> Path:
        """``_build/assignments/<language>/README.md``: the instructor's guide to one edition's assignments."""
        return self.assignments_dir / language / "README.md"

    def pdf_href(self, framework: str) -> str:
        """The PDF of the book with ``framework``'s code, from its edition's root: ``pdf/<book>-<framework>.pdf``."""
        slug = re.sub(r"[^a-z0-9]+", "-", self.config().title.lower()).strip("-") or "book"
        return f"{PDF_FOLDER}/{PDF_NAME.format(book=slug, framework=framework)}"

    def pdf_file(self, language: str, framework: str) -> Path:
        """``_build/html/<language>/pdf/<book>-<framework>.pdf``: one edition's book with one framework's code."""
        return self.edition_site_dir(language) / self.pdf_href(framework)

    def page_names(self, language: str = SOURCE_LANGUAGE) -> list[str]:
        """The pages of one edition in reading order, as the site names them (``preliminaries``)."""
        return [
            path.relative_to(self.edition_dir(language)).with_suffix("").as_posix() for path in self.pages(language)
        ]

    @property
    def d2lbook_env(self) -> Path:
        """``.venv-d2lbook/``: d2lbook's isolated environment (it pins Sphinx 5.3)."""
        return self.root / D2LBOOK_ENV

    def work_dir(self, name: str) -> Path:
        """``_build/<name>/``: the scratch folder of one stage (``editions``, ``slides``, ``versions``...)."""
        return self.build_dir / name

    def relative(self, path: Path) -> str:
        """How messages and test ids name a file of the book: its path from the root, with ``/``."""
        return path.relative_to(self.root).as_posix()

    # -- what the configuration says -----------------------------------------

    def config(self) -> BookConfig:
        """``_config.yml``, validated (``booktools.configuration.config_file``); parsed once per text of the file."""
        return _parsed_config(read_text(self.config_file, CONFIG_FILE))

    def edition_folders(self) -> list[str]:
        """The names of the folders under ``chapters/`` (each should be an edition)."""
        return sorted(
            path.name for path in self.chapters.iterdir() if path.is_dir() and not path.name.startswith((".", "_"))
        )

    def present_editions(self) -> list[Edition]:
        """The configured editions that have a folder ``chapters/<code>/``, English first.

        Raises:
            ConfigError: if ``_config.yml`` is invalid, or a folder under ``chapters/``
                is not listed under ``editions``.
        """
        configured = configured_editions(self.config())
        codes = {edition.code for edition in configured}
        folders = self.edition_folders()
        for folder in folders:
            if folder not in codes:
                listed = ", ".join(sorted(codes))
                raise ConfigError(
                    CONFIG_FILE, "editions", f"{CHAPTERS}/{folder}/ is not listed under `editions` (listed: {listed})"
                )
        return [edition for edition in configured if edition.code in folders]

    def editions(self) -> list[str]:
        """The language codes of the editions present, English first."""
        return [edition.code for edition in self.present_editions()]

    def toc_entries(self) -> list[str]:
        """The documents of ``_toc.yml`` in reading order (``chapters/en/<page>``, no suffix).

        Raises:
            ConfigError: if ``_toc.yml`` is missing or of a shape ``booktools.configuration.toc`` does not read.
        """
        return read_reading_order(self.toc_file, TOC_FILE)

    def pages(self, language: str = SOURCE_LANGUAGE) -> list[Path]:
        """The pages (``.ipynb`` or ``.md``) of one edition, in reading order.

        Raises:
            ValueError: if a ``_toc.yml`` entry is not under ``chapters/en/``.
            FileNotFoundError: if the edition lacks a page that ``_toc.yml`` names.
        """
        paths = []
        for entry in self.toc_entries():
            parts = Path(entry).parts
            if parts[:2] != (CHAPTERS, SOURCE_LANGUAGE):
                raise ValueError(f"{TOC_FILE} entry {entry!r} is not under {CHAPTERS}/{SOURCE_LANGUAGE}/")
            stem = self.edition_dir(language).joinpath(*parts[2:])
            found = [stem.with_suffix(suffix) for suffix in (".ipynb", ".md") if stem.with_suffix(suffix).exists()]
            if not found:
                raise FileNotFoundError(f"{TOC_FILE} names {entry}, but {self.relative(stem)}.ipynb/.md is missing")
            paths.append(found[0])
        return paths

    def source_pages(self, language: str = SOURCE_LANGUAGE) -> list[Path]:
        """One edition's source pages that are notebooks, in reading order (not :attr:`notebooks_dir`'s)."""
        return [path for path in self.pages(language) if path.suffix == ".ipynb"]

    def language_of(self, source: Path) -> str:
        """The edition a source page belongs to: its folder under ``chapters/``."""
        return source.relative_to(self.chapters).parts[0]
