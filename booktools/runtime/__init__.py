"""What the book's runs run in, beneath every stage: the notebooks' kernel and a local static server.

- ``kernel``: the ``d2l-book`` Jupyter kernel spec every notebook run uses (``python -m booktools kernel``).
- ``static_server``: a folder served on 127.0.0.1 for the length of a block (the PDF printer's, the audit's
  and the tests'): files only, no code runs on a request, so no token.
"""
