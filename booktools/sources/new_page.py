"""A new page's sources, its starting files in every edition (``python -m booktools new-page``).

The recipe "How to add a page" (``docs/architecture.md``) starts with files that must agree:
the page in every edition (the same cell ids), its line in ``_toc.yml`` and its entry in
``chapters/pages.yml``. :func:`add_page` writes all of them at once:

- ``chapters/<lang>/<page>.ipynb`` for every edition: one markdown cell, id ``title``, with
  the label ``(sec_<page>)=`` and the title (in English: each edition translates it, and the
  translation checker names it until then), the kernel and language of the other pages;
- ``- file: chapters/en/<page>`` in ``_toc.yml``, after the page it follows (last by default);
- ``<page>: {words: ..., quiz: ...}`` in ``chapters/pages.yml``, in the same place.

The files are edited as text, so their comments stay. A page that exists, a name that is not a
file name, or an unknown page to follow is refused before anything is written. What is left to
do (translating, code, ``code_text.yml``, ``index.md``, a quiz, outputs) is printed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import nbformat

from booktools.project import SOURCE_LANGUAGE, Project

PAGE_NAME = re.compile(r"[a-z][a-z0-9-]*")
TITLE_CELL_ID = "title"
NEXT_STEPS = """next (docs/architecture.md, "How to add a page"): write and translate the page, then make outputs
and make check; make check fails, naming what is missing, until the title is translated in every edition but
English (and, with --quiz, the quiz is written)."""


class NewPageError(ValueError):
    """A page that cannot be added as asked; nothing was written."""


@dataclass(frozen=True)
class NewPage:
    """What :func:`add_page` is asked to add."""

    name: str
    title: str
    after: str | None = None  # the page it follows in the reading order (default: the last)
    words: int | None = None  # its word cap in chapters/pages.yml (None: no cap)
    quiz: bool = False


def _check(page: NewPage, project: Project) -> str:
    """Return the page the new one follows; raise :class:`NewPageError` for a request that cannot be done."""
    if not PAGE_NAME.fullmatch(page.name):
        raise NewPageError(f"page name {page.name!r}: expected lowercase letters, digits and hyphens, a-z first")
    if not page.title.strip():
        raise NewPageError("the page needs a title")
    if page.words is not None and page.words <= 0:
        raise NewPageError(f"words: expected a positive word cap or none, got {page.words}")
    pages = project.page_names()
    files = [project.edition_dir(code) / f"{page.name}.ipynb" for code in project.editions()]
    if page.name in pages or any(path.exists() for path in files):
        raise NewPageError(f"page {page.name!r} exists already")
    after = page.after or pages[-1]
    if after not in pages:
        raise NewPageError(f"--after {after!r}: not a page of _toc.yml ({', '.join(pages)})")
    return after


def _notebook(page: NewPage, project: Project) -> nbformat.NotebookNode:
    """The page's notebook: its title cell, with the metadata of the book's first page."""
    first = nbformat.read(project.source_pages(SOURCE_LANGUAGE)[0], as_version=4)
    cell = nbformat.v4.new_markdown_cell(f"(sec_{page.name})=\n# {page.title.strip()}")
    cell["id"] = TITLE_CELL_ID
    notebook: nbformat.NotebookNode = nbformat.v4.new_notebook(cells=[cell], metadata=first.metadata)
    return notebook


def _insert_after(text: str, anchor: re.Pattern[str], lines: str) -> str:
    """``text`` with ``lines`` after the block the ``anchor`` line starts (the lines indented deeper)."""
    out = text.splitlines(keepends=True)
    start = next(i for i, line in enumerate(out) if anchor.match(line))
    indent = len(out[start]) - len(out[start].lstrip())
    end = start + 1
    while end < len(out) and out[end].strip() and len(out[end]) - len(out[end].lstrip()) > indent:
        end += 1
    return "".join([*out[:end], lines, *out[end:]])


def _with_toc_line(project: Project, name: str, after: str) -> str:
    """``_toc.yml`` with ``- file: chapters/en/<name>`` after the line of ``after`` (first, after the root)."""
    english = f"{project.relative(project.edition_dir(SOURCE_LANGUAGE))}/"
    lines = project.toc_file.read_text(encoding="utf-8").splitlines(keepends=True)
    files = [i for i, line in enumerate(lines) if line.lstrip().startswith(f"- file: {english}")]
    if not files:
        raise NewPageError(f"{project.relative(project.toc_file)} lists no page under `chapters:`")
    indent = lines[files[0]][: len(lines[files[0]]) - len(lines[files[0]].lstrip())]
    wanted = f"- file: {english}{after}"
    at = (
        files[0]
        if after == project.page_names()[0]
        else next((i + 1 for i in files if lines[i].strip() == wanted), None)
    )
    if at is None:
        raise NewPageError(f"{project.relative(project.toc_file)}: no line `{wanted}` at the chapters' level")
    return "".join([*lines[:at], f"{indent}- file: {english}{name}\n", *lines[at:]])


def _with_manifest_entry(project: Project, page: NewPage, after: str) -> str:
    """``chapters/pages.yml`` with the page's entry after the entry of ``after`` (either style: block or inline)."""
    words = "null" if page.words is None else str(page.words)
    entry = f"  {page.name}:\n    words: {words}\n    quiz: {'true' if page.quiz else 'false'}\n"
    text = project.pages_file.read_text(encoding="utf-8")
    try:
        return _insert_after(text, re.compile(rf"^  {re.escape(after)}:(\s|$)"), entry)
    except StopIteration:
        raise NewPageError(
            f"{project.relative(project.pages_file)} has no entry {after!r} to put the page after"
        ) from None


def add_page(page: NewPage, project: Project) -> list[str]:
    """Write the new page's files (see the module's docstring); return them, from the book's root.

    Raises:
        NewPageError: if the page cannot be added as asked (then nothing was written).
    """
    after = _check(page, project)
    # Every new text is made before anything is written, so that a refusal leaves the book as it was.
    toc = _with_toc_line(project, page.name, after)
    manifest = _with_manifest_entry(project, page, after)
    notebook = _notebook(page, project)
    written = []
    for code in project.editions():
        path = project.edition_dir(code) / f"{page.name}.ipynb"
        nbformat.write(notebook, path)
        written.append(project.relative(path))
    project.toc_file.write_text(toc, encoding="utf-8")
    project.pages_file.write_text(manifest, encoding="utf-8")
    return [*written, project.relative(project.toc_file), project.relative(project.pages_file)]


def run(project: Project, name: str, title: str, after: str | None, words: int | None, quiz: bool) -> int:
    """``python -m booktools new-page``: write the page's starting files, or say why not; 0 or 1."""
    try:
        written = add_page(NewPage(name, title, after, words, quiz), project)
    except NewPageError as error:
        print(f"new-page: {error}")
        return 1
    print("wrote " + ", ".join(written))
    print(NEXT_STEPS)
    return 0
