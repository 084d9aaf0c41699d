"""``make pdf``: the whole book of each edition as one PDF per framework, from the built site.

For every edition in ``_build/html/<code>/`` and every framework, the pages of
``_toc.yml`` and the API appendix are joined into one print document
(``booktools.pdf.document``) and printed by Chromium (``booktools.pdf.printer``)
to ``_build/html/<code>/pdf/<book>-<framework>.pdf`` (``Project.pdf_file``), which
every page of the edition links (``booktools.website.extension.pdf_links``). It is the
``pdf`` stage of ``booktools.pipeline.stages``: run for an edition after its site, when
that was rebuilt. Each edition is one print document, printed once per framework; a copy of it
is kept in ``_build/pdf/<code>/print.html`` for inspection.

Usage::

    python -m booktools pdf
"""

from __future__ import annotations

import functools
import sys
from pathlib import Path

from pypdf import PdfReader

from booktools.configuration.config_file import Edition, configured_editions
from booktools.pdf.document import FRAMEWORK_ATTRIBUTE, Cover, print_document
from booktools.pdf.printer import PdfOutput, PrintJob, print_pdfs
from booktools.project import Project
from booktools.sources.frameworks import FRAMEWORKS
from booktools.sources.strings import load_strings
from booktools.website.api_page import PAGE as API_PAGE
from booktools.website.built_pages import BuiltPageError

WORK = "pdf"
DOCUMENT = "print.html"


def document_copy(project: Project, language: str) -> Path:
    """``_build/pdf/<language>/print.html``: the copy of an edition's print document kept for inspection."""
    return project.work_dir(WORK) / language / DOCUMENT


def edition_folders(project: Project, languages: list[str] | None = None) -> list[tuple[Edition, Path]]:
    """Return the editions ``languages`` (all by default) built into the site, with their folders, in order."""
    configured = configured_editions(project.config())
    chosen = [edition for edition in configured if languages is None or edition.code in languages]
    found = [(edition, project.edition_site_dir(edition.code)) for edition in chosen]
    return [(edition, folder) for edition, folder in found if (folder / "index.html").exists()]


def print_job(project: Project, edition: Edition, folder: Path) -> PrintJob:
    """Return the print job of one built edition: its print document and one PDF per framework.

    A copy of the document is written to ``document_copy``.

    Raises:
        BuiltPageError: if a built page lacks what its print needs.
        FileNotFoundError: if the site lacks a page of ``_toc.yml``.
    """
    author = project.config().author
    names = [*project.page_names(edition.code), API_PAGE]
    pages = {name: (folder / f"{name}.html").read_text(encoding="utf-8") for name in names}
    strings = load_strings(project, edition.code).pdf
    code_in = {framework.name: strings.code_in.format(framework=framework.label) for framework in FRAMEWORKS}
    document = print_document(pages, Cover(edition.code, edition.title, author, strings.contents, code_in))
    copy = document_copy(project, edition.code)
    copy.parent.mkdir(parents=True, exist_ok=True)
    copy.write_text(document, encoding="utf-8")
    outputs = tuple(
        PdfOutput(f.name, f"{edition.title} ({f.label})", project.pdf_file(edition.code, f.name)) for f in FRAMEWORKS
    )
    return PrintJob(f"{edition.code}/{DOCUMENT}", document, FRAMEWORK_ATTRIBUTE, outputs)


def print_editions(project: Project, languages: list[str] | None = None) -> int:
    """Print the PDFs of the editions ``languages`` (all by default); 0 on success, 1 on a problem (said on stderr)."""
    editions = edition_folders(project, languages)
    if not editions:
        print(f"make pdf: no edition in {project.relative(project.site_dir)}/ (make book builds it)", file=sys.stderr)
        return 1
    makers = [functools.partial(print_job, project, edition, folder) for edition, folder in editions]
    try:
        seconds = print_pdfs(project.site_dir, makers)
    except (BuiltPageError, FileNotFoundError) as error:
        print(f"make pdf: {error}", file=sys.stderr)
        return 1
    except Exception as error:  # Playwright's errors: said, not a traceback
        print(f"make pdf: printing failed: {error}", file=sys.stderr)
        return 1
    printed = [project.pdf_file(edition.code, framework.name) for edition, _ in editions for framework in FRAMEWORKS]
    for pdf in printed:
        pages = len(PdfReader(pdf).pages)
        print(f"  {project.relative(pdf)}: {pdf.stat().st_size / 1e6:.1f} MB, {pages} pages")
    print(f"pdf: {len(printed)} PDFs -> {project.relative(project.site_dir)}/<lang>/pdf/ ({seconds:.0f} s)")
    return 0
