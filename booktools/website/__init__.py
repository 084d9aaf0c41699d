"""The site: every edition built by Jupyter Book, and the Sphinx extensions that run inside the build.

- ``build``: every edition into ``_build/html/<lang>/``, and the landing page (``python -m booktools book``).
- ``editions``: each edition's Jupyter Book configuration and table of contents, derived from the top-level ones.
- ``pages``: the renderable copy of an edition's pages (framework cells marked for tabs, alt text, slides link).
- ``alt_text``: the alt text of the heatmaps, in the edition's language.
- ``api_docs``: the API appendix page, and the Sphinx extension that links each object to its section.
- ``static_server``: a folder served on 127.0.0.1 for the length of a block (the PDF printer's, the audit's
  and the tests'): files only, no code runs on a request, so no token.
- ``theme/``: the Sphinx extension of every edition (language switcher, tabs, live code, accessibility).
"""
