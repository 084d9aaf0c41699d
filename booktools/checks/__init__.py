"""Checks that are not a derivation's own ``--check``: translations, nbval's comparisons, framework versions,
pages' lengths, the site's Lighthouse scores.

- ``translations/``: every edition against English, cell by cell (``python -m booktools translations``).
- ``nbval_plugin``: the pytest plugin that makes nbval compare figures, and numbers as numbers.
- ``nbval_numbers``: the rules for comparing printed numbers.
- ``page_words``: the words a reader meets on a built page in each framework's tab, and the pages'
  caps (``python -m booktools page-words _build/html/en``).
- ``version_matrix/``: the library's tests at the lowest and newest releases of each framework
  (``python -m booktools versions``).
- ``audit/``: Lighthouse on every page of the built site, against a bar on every score
  (``python -m booktools audit``, ``make audit``).
"""
