"""Tooling that derives the book from its source pages and checks it.

One command line, ``python -m booktools [--root DIR] <verb>`` (``python -m booktools --help``
lists every verb), makes one :class:`booktools.project.Project` and hands it to that verb's function.
The top modules and the packages, one concern each (every module, the data flow and the how-tos:
``docs/architecture.md``; each package's own ``__init__`` lists its modules):

- ``__main__``: the command line, its verbs and the function each verb runs.
- ``upstream/``: every coupling to another tool's insides, the release it was written for, and its guard
  (the lowest layer: it imports only the standard library).
- ``project``: every path of the book, and ``_config.yml`` and ``_toc.yml`` as read.
- ``programs``: where the external programs the build runs are (the pinned npm packages, Chromium).
- ``configuration/``: the configuration files read into typed, validated objects (above ``upstream`` only).
- ``runtime/``: what the book's runs run in: the ``d2l-book`` Jupyter kernel, a static server on 127.0.0.1.
- ``sources/``: what authors write, read and validated (marks, strings, quizzes, code text, measured figures).
- ``derive/``: what is generated from it (``d2l_lib``, ``notebooks/``, stored outputs, assignments).
- ``website/``: the site of every edition and its root files; ``website/extension/`` is its Sphinx extension.
- ``slides/``: the lecture decks, through d2lbook in ``.venv-d2lbook``.
- ``pdf/``: one PDF per edition and framework, printed from the built site with Chromium.
- ``pipeline/``: the build as stages with declared reads and writes, each run only when they changed.
- ``servers/``: JupyterLab and the local server of the built site and its live code.
- ``checks/``: what compares and tests, never edits a source, writing reports under ``_build/`` only (nbval
  plugin, version matrix, translations, page words, the Lighthouse audit).
"""
