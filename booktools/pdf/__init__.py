"""The book as PDFs, one per edition and framework, printed from the built site (``make pdf``).

- ``document``: an edition's built pages joined into one print document with one framework's code.
- ``printer``: print documents to PDF with Chromium, offline, in one headless browser.
- ``edition_pdfs``: both, for every edition and framework (``make pdf``; the ``pdf`` stage of
  ``booktools.pipeline.stages``).
"""
