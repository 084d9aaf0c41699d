"""Check that every translation matches the English edition, page by page (``make check-translations``).

For each edition under ``chapters/<lang>/`` other than English, each page that
``_toc.yml`` lists (notebook or ``.md`` page) is compared with its English
original, cell by cell:

- the cells: same number, order, kind, ``metadata.tags``, ids and framework
  marks (``#@tab``, ``:begin_tab:``; see ``booktools.sources.frameworks``), so every
  framework's cells are covered;
- code cells: the same parsed code (comments and docstrings are free to differ),
  with ``#@save`` on the same statements, and the same stored outputs (only
  their kinds where nbval ignores them; of a record of measured figures, only the names);
- markdown, parsed as MyST parses it: the same math blocks and labels, inline
  math, MyST labels, role targets, directives, heading levels and URLs, and the
  measured figures quoted (``{measured}`CELL-ID.NAME:FORMAT```, ``booktools.sources.measured``),
  same cell, name and format in the same order;
- the glossary ``chapters/glossary.yml``: no banned variant anywhere (the
  edition's alt-text templates, ``chapters/<lang>/alt_text.yml``, included), and the
  chosen term in each markdown cell whose English original names the concept;
- the glossary's style rules (its ``rules``, per edition): no text that breaks
  one, in markdown, comments, docstrings and quiz text;
- prose left in English: a sentence identical to the English one or full of
  English function words, in markdown, comments and docstrings.

Problems are reported as ``<file>, cell <number> (id <id>): <problem>``; a
line number inside a problem is that of the paragraph or comment.

One job per module:

- ``glossary``: ``chapters/glossary.yml``, its schema, its terms and style rules per language;
- ``markdown``: what a markdown cell shares with English, from the MyST parser's tokens (``sources.myst``);
- ``prose``: sentences, and whether one is still English;
- ``pycode``: code without comments and docstrings, and the prose in them;
- ``cells``: a page's cells, matched with their English originals by id;
- ``compare``: one translated cell's structure against its English original;
- ``wording``: one translated cell's prose (English left, glossary, style rules), and texts outside cells;
- ``number_format``: numbers in a translation's prose, in the edition's own format;
- ``code_texts``: ``chapters/code_text.yml`` against the English code and each edition's translations;
- ``quiz_data``: a quiz cell's questions in the edition's data against English's;
- ``check``: every page of every edition (``python -m booktools translations``).
"""

from booktools.checks.translations.cells import Cell, read_cells
from booktools.checks.translations.check import check, compare_page, run
from booktools.checks.translations.glossary import GlossaryError, Term, read_glossary

__all__ = ["Cell", "GlossaryError", "Term", "check", "compare_page", "read_cells", "read_glossary", "run"]
