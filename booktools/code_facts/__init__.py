"""What the command line's help and docs/architecture.md say about the code, kept as data or rendered from it.

Above ``servers``, below the entry point (the tables read the pipeline's stages, the quality bars, the site's
upstream registry).

- ``verbs``: the verbs' names and one-line help, as data.
- ``tables``: the tables of docs/architecture.md that are facts of the code, rendered from it (``make docs``).
"""
