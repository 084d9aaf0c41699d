"""Local servers: on 127.0.0.1 only, each with a token made per run, stopped with their kernels.

- ``kernel``: the ``d2l-book`` Jupyter kernel spec every notebook run uses (``python -m booktools kernel``).
- ``lab``: JupyterLab on the derived notebooks (``python -m booktools lab``).
- ``serve``: the built site and a Jupyter server for its live code (``python -m booktools serve``).
"""
