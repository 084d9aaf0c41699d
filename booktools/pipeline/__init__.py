"""The build as stages with declared inputs and outputs, each run only when what it reads has changed.

- ``stamps``: the content digest of what a stage reads, and the stamp a stage leaves when it succeeds.
- ``graph``: :class:`~booktools.pipeline.graph.Stage` (what a stage reads, writes, needs and runs) and
  :func:`~booktools.pipeline.graph.make`, which runs the stale ones in dependency order.
- ``stages``: the stage table (the library, the notebooks, each edition's site, slides and PDFs, the site's root
  files, the audit), assembled from ``stage_io``, ``stage_runs`` and ``graph``: each stage's entry names what it
  reads, writes, needs, runs and runs with.
- ``stage_io``: what each stage reads (the whole of ``booktools/`` among it), writes and runs with.
- ``stage_runs``: what each stage does when it runs, for the editions given.
- ``tool_inputs``: the tools' facts in a stage's digest: the Python environments' distributions, Node, Chromium.

Above ``website``, ``slides``, ``pdf`` and ``checks``, below ``servers`` and the entry point.
"""
