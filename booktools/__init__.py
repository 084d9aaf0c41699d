"""Tooling that generates and checks the book (map: ``docs/architecture.md``).

Each module is one job, run as ``python -m booktools.<module>`` by the Makefile:

- ``book``: where the book's pages are and in which order (from ``_toc.yml``), and which
  editions are present.
- ``schema``: typed schemas for the YAML files; a wrong key or type names the file, the
  key and what was expected.
- ``config``: the keys of ``_config.yml`` booktools reads, validated (``editions`` above all).
- ``frameworks``: the frameworks, and which cells of a source page belong to which
  (``#@tab``, ``:begin_tab:``).
- ``save_marks``: d2lbook's ``#@save`` rule, which statements of a cell the library keeps.
- ``extract``: ``make lib`` / ``make check-lib``, the ``#@save`` cells to ``d2l_lib/<framework>.py``.
- ``derive``: ``make notebooks`` / ``make check-notebooks``, one runnable notebook per
  page, language and framework under ``notebooks/``.
- ``kernel``: the ``d2l-book`` Jupyter kernel every notebook run uses.
- ``execute``: ``make outputs``, headless re-execution that stores the outputs.
- ``nbval_outputs``: a pytest plugin that makes nbval compare figures, and numbers within a
  unit of their last digit (``nbval_numbers``: the rules for numbers).
- ``version_matrix``: ``make test-versions``, the library's tests on the lowest and newest
  release of each framework that ``pyproject.toml`` allows.
- ``translations``: ``make check-translations``, the editions against English (a package:
  glossary, MyST parsing, English prose, code, cell pairing, comparison, the command).
- ``book_pages``: the renderable copy of an edition, framework cells marked for tabs.
- ``build``: ``make book``, every edition into ``_build/html``; ``theme/`` is the
  Sphinx extension it loads (language switcher, framework tabs, local MathJax,
  Korean search).
"""
