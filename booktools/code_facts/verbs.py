"""The verbs of ``python -m booktools`` as data: each one's name and one-line help, in the order a book is made.

``booktools.__main__`` gives each its options and the function it runs; ``booktools.code_facts.tables`` renders them,
with the make targets that call them, into ``docs/architecture.md``. Nothing of booktools is imported here.
"""

from __future__ import annotations

VERB_HELP = (
    ("kernel", "install the d2l-book Jupyter kernel every notebook run uses"),
    ("lib", "generate d2l_lib/<framework>.py from the #@save cells"),
    ("notebooks", "derive notebooks/<lang>/<framework>/ from the source pages"),
    ("new-page", "a new page's starting files in every edition, _toc.yml and chapters/pages.yml"),
    ("outputs", "re-execute the notebooks headlessly and store their outputs"),
    ("assignment", "write the exercises as assignments for instructors into _build/assignments"),
    ("book", "bring the site, its slides and its PDFs up to date in _build/html"),
    ("slides", "build the lecture slides of the editions whose pages changed into the site"),
    ("pdf", "bring the site up to date and print its editions as PDFs, one per framework"),
    ("serve", "serve the built site and a local Jupyter server for its live code"),
    ("lab", "JupyterLab on the derived notebooks, on the d2l-book kernel"),
    (
        "check",
        "check that d2l_lib, notebooks/, the translations, chapters/pages.yml, the quizzes and the generated "
        "tables of docs/architecture.md match their sources",
    ),
    ("translations", "check that every translation matches the English edition"),
    ("versions", "the library's tests on the lowest and newest framework releases"),
    ("page-words", "the words a reader meets on a built edition's pages, per framework, against their caps"),
    ("audit", "Lighthouse on every page of the built site, mobile and desktop, as a table"),
    ("docs", "write the tables of docs/architecture.md that are facts of the code (--check: only compare)"),
)
"""Each verb's name and its one-line help (``--help``), in the order a book is made."""
