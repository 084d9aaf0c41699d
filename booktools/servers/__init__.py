"""Local servers for a reader, on 127.0.0.1 only; those that run code (Jupyter) have a token made per run.

The highest layer below the entry point: a server may build what it serves first.

- ``lab``: JupyterLab on the derived notebooks (``python -m booktools lab``).
- ``serve``: the built site and a Jupyter server for its live code (``python -m booktools serve``).
"""
