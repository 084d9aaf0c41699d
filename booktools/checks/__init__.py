"""Checks that are not a derivation's own ``--check``: translations, nbval's comparisons, framework versions.

- ``translations/``: every edition against English, cell by cell (``python -m booktools translations``).
- ``nbval_plugin``: the pytest plugin that makes nbval compare figures, and numbers as numbers.
- ``nbval_numbers``: the rules for comparing printed numbers.
- ``version_matrix``: the library's tests at the lowest and newest releases of each framework
  (``python -m booktools versions``).
"""
