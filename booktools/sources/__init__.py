"""The book's sources and their configuration, read and validated; only ``new_page`` writes, a new page's sources.

(``booktools.configuration`` reads ``_config.yml`` and holds the typed YAML schemas, beneath ``booktools.project``.)

- ``frameworks``: the frameworks, and which cells of a source page belong to which (``#@tab``).
- ``save_marks``: d2lbook's ``#@save`` rule, which statements of a cell the library keeps.
- ``slide_marks``: d2lbook's slide marks in markdown, stripped for the book, kept for the decks.
- ``myst``: markdown as MyST reads it (headings and their labels).
- ``page_manifest``: each page's facts, its word cap and whether it has a quiz (``chapters/pages.yml``).
- ``quiz_check``: every edition's quizzes against the answer keys and the pages with ``quiz: true``.
- ``quizzes``: the quizzes' answer keys and each edition's quiz data, and how they must agree.
- ``strings``: each edition's interface strings and number format (``chapters/<lang>/strings.yml``).
- ``library_messages``: the library's own messages (``d2l_lib/messages/<lang>.json``), held to English's keys.
- ``cell_code``: a cell's code as the editions must share it, parsed, with every docstring the same.
- ``code_text``: the words the code shows the reader, which each edition writes in its language
  (``chapters/code_text.yml``).
- ``exercises``: the code exercises' cells, their tags, and which of them print in the edition's language.
- ``alt_text``: each edition's alt-text templates for the heatmaps (``chapters/<lang>/alt_text.yml``).
- ``mime_types``: the MIME types of the display data that describe a figure or record measured figures.
- ``new_page``: for authors, a new page's sources: its title cell in every edition, its ``_toc.yml`` line and its
  ``chapters/pages.yml`` entry (``python -m booktools new-page``, ``make new-page``).
- ``measured``: the measured figures the prose quotes (``{measured}`CELL-ID.NAME:FORMAT```), filled from
  the figures a cell's stored outputs recorded, in the edition's number format.
"""
