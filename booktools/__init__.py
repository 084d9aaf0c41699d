"""Tooling that derives the book from its source pages and checks it.

One command line, ``python -m booktools [--root DIR] <verb>`` (``python -m booktools --help``
lists every verb), makes one :class:`booktools.project.Project` and hands it to that verb's function.
The map: each top module's job here, each package's in its own ``__init__`` (its first paragraph, then its
modules); ``make docs`` renders them all into docs/architecture.md's module table.

- ``__main__``: the command line: one ``Project``, one verb, its verb function.
- ``project``: every path of the book, and ``_config.yml`` and ``_toc.yml`` as read.
- ``programs``: where the external programs the build runs are (the pinned npm packages, Chromium).
- ``upstream/``
- ``configuration/``
- ``runtime/``
- ``sources/``
- ``derive/``
- ``website/``
- ``slides/``
- ``pdf/``
- ``pipeline/``
- ``servers/``
- ``checks/``
- ``docs/``
"""
