"""Local servers, on 127.0.0.1 only; those that run code (Jupyter) have a token made per run.

- ``kernel``: the ``d2l-book`` Jupyter kernel spec every notebook run uses (``python -m booktools kernel``).
- ``lab``: JupyterLab on the derived notebooks (``python -m booktools lab``).
- ``serve``: the built site and a Jupyter server for its live code (``python -m booktools serve``).
- ``static``: a folder served for the length of a block (the PDF printer's, the audit's and the tests'):
  files only, no code runs on a request, so no token.
"""
