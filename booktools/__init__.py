"""Tooling that derives the book from its source pages and checks it.

One command line, ``python -m booktools [--root DIR] <verb>`` (``python -m booktools --help``
lists every verb), makes one :class:`booktools.project.Project` and hands it to a stage.
The packages, one concern each (every module, the data flow and the how-tos:
``docs/architecture.md``):

- ``project``: every path of the book, and ``_config.yml`` and ``_toc.yml`` as read.
- ``npm_packages``: where each pinned npm package is installed.
- ``sources/``: what authors write, read and validated (marks, config, strings, quizzes, measured figures).
- ``derive/``: what is generated from it (``d2l_lib``, ``notebooks/``, stored outputs, assignments).
- ``website/``: the site of every edition; ``website/theme/`` is its Sphinx extension.
- ``slides/``: the lecture decks, through d2lbook in ``.venv-d2lbook``.
- ``servers/``: the ``d2l-book`` kernel, JupyterLab and the local server for live code.
- ``checks/``: what compares and tests, never edits (nbval plugin, version matrix, translations).
"""
