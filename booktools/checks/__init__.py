"""Checks that are not a derivation's own ``--check``: translations, nbval's comparisons, framework versions,
pages' lengths, the site's Lighthouse scores.

- ``translations/``
- ``nbval_plugin``: the pytest plugin that makes nbval compare figures, and numbers as numbers.
- ``nbval_numbers``: the rules for comparing printed numbers.
- ``nbval_figures``: the rule for comparing figures (PNG outputs).
- ``page_words``: the words a reader meets on a built page in each framework's tab, and the pages'
  caps (``python -m booktools page-words _build/html/en``).
- ``version_matrix/``
- ``audit/``
"""
