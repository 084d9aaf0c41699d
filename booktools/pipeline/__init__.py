"""The build as stages with declared inputs and outputs, each run only when what it reads has changed.

- ``stamps``: the content digest of what a stage reads, and the stamp a stage leaves when it succeeds.
- ``graph``: :class:`~booktools.pipeline.graph.Stage` (what a stage reads, writes, needs and runs) and
  :func:`~booktools.pipeline.graph.make`, which runs the stale ones in dependency order.
- ``stages``: the stages of the build (the library, the notebooks, each edition's site, slides and PDFs, the
  site's root files, the audit): what each reads, writes and needs, the one place where the build can be read.
- ``stage_io``: what each stage reads, writes and runs with: its files and the digest of its tools.
- ``stage_runs``: what each stage does when it runs, for the editions given.
- ``tool_inputs``: the code a stage reads (the modules it runs and the files beside them) and its tools' versions.

Above ``website``, ``slides``, ``pdf`` and ``checks``, below ``servers`` and the entry point.
"""
