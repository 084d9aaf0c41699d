"""Tooling that derives the book from its source pages and checks it.

One command line, ``python -m booktools [--root DIR] <verb>`` (``python -m booktools --help``
lists every verb), makes one :class:`booktools.project.Project` and hands it to that verb's function.
The map: each top module's job here, each package's in its own ``__init__`` (its first paragraph, then its
modules); ``make docs`` renders them all into docs/architecture.md's module table. The map lists them in the
order of :data:`LAYERS`, bottom first.

- ``upstream/``
- ``configuration/``
- ``programs``: where the external programs the build runs are (the pinned npm packages, Chromium).
- ``runtime/``
- ``project``: every path of the book, and ``_config.yml`` and ``_toc.yml`` as read.
- ``sources/``
- ``derive/``
- ``slides/``
- ``website/``
- ``pdf/``
- ``checks/``
- ``pipeline/``
- ``servers/``
- ``cli/``
- ``code_facts/``
- ``__main__``: the command line: one ``Project``, one verb, its verb function; each verb's help and options.
"""

LAYERS = (
    "upstream",
    "configuration",
    "programs",
    "runtime",
    "project",
    "sources",
    "derive",
    "slides",
    "website",
    "pdf",
    "checks",
    "pipeline",
    "servers",
    "cli",
    "code_facts",
    "__main__",
)
"""The import layers, bottom first: a module imports booktools only from its own layer and those before it.

Each package (``website``) and each top module (``project``) is a layer; ``tests/tooling/test_import_graph.py``
holds the code to it, and ``make docs`` writes it into docs/architecture.md.
"""
