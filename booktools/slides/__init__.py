"""Lecture slides of every page, edition and framework, through d2lbook's own generator.

- ``decks``: derived notebooks -> d2lbook (in ``.venv-d2lbook``) -> nbconvert -> reveal.js decks in
  the built site (``python -m booktools slides``).
- ``lecture``: the cells that go to d2lbook, and its slide notebooks made to fit (``fit``).
- ``fit``: slides split where one would be too tall for 1280x720.
- ``metrics``: the size of a slide and the height each cell takes on it.
- ``errors``: ``SlidesError``, which every module of the slides raises.
- ``mathjax``: where the decks' MathJax 3 comes from, so that they read without a network.
- ``d2lbook_run``: the script ``decks`` runs with d2lbook's Python; it imports nothing of the book.
"""
