"""Tooling that generates and checks the book.

Each module is one job, run as ``python -m booktools.<module>`` by the Makefile:

- ``book``: where the book's pages are and in which order (from ``_toc.yml``).
- ``extract``: ``make lib`` / ``make check-lib``, the ``#@save`` cells to ``d2l_lib/torch.py``.
- ``execute``: ``make outputs``, headless re-execution that stores the outputs.
- ``nbval_figures``: a pytest plugin that makes nbval compare figures too.
- ``translations``: ``make check-translations``, the editions against English.
- ``build``: ``make book``, every edition into ``_build/html``; ``theme/`` is the
  Sphinx extension it loads (language switcher, local MathJax, Korean search).
"""
