"""What docs/architecture.md says about the code, kept as data or rendered from it.

Above ``cli``, below the entry point (the tables read the pipeline's stages, the quality bars, the site's
upstream registry; the verbs, which the entry point holds, are given to them).

- ``tables``: the tables of docs/architecture.md that are facts of the code, rendered from it (``make docs``).
"""
