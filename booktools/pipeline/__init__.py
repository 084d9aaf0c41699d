"""The build as stages with declared inputs and outputs, each run only when what it reads has changed.

- ``stamps``: the content digest of what a stage reads, and the stamp a stage leaves when it succeeds.
- ``graph``: :class:`~booktools.pipeline.graph.Stage` (what a stage reads, writes, needs and runs) and
  :func:`~booktools.pipeline.graph.make`, which runs the stale ones in dependency order.
- ``book``: the stages of ``make book`` (each edition's site, slides and PDFs, then the site's root files),
  the one place where the whole build can be read.

Above ``website``, ``slides``, ``pdf`` and ``checks``, below ``servers`` and the entry point.
"""
