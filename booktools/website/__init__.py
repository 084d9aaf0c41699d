"""The site: every edition built by Jupyter Book, its root files, and the Sphinx extensions that run inside the build.

- ``jupyter_book``: every edition, built by Jupyter Book, into ``_build/html/<lang>/`` (the ``site`` stage of
  ``booktools.pipeline.stages``).
- ``editions``: each edition's Jupyter Book configuration and table of contents, derived from the top-level ones.
- ``edition_copy``: the renderable copy of an edition's pages (framework cells marked for tabs, alt text, slides link).
- ``built_pages``: reading a built page (its article, its framework tab sets, the slides link), for the PDFs and
  the word counts.
- ``heatmap_alt_text``: the alt text of the heatmaps, in the edition's language (templates: ``sources.alt_text``).
- ``api_page``: the API appendix page's text and its place in each edition's contents.
- ``landing``: the landing page, ``_build/html/index.html``, one link per edition with its slides and PDFs.
- ``preview_image``: the site's preview image (og:image), a heatmap of attention weights drawn at build time.
- ``sitemap``: the site's ``sitemap.xml`` and ``robots.txt``.
- ``site_url``: the site's absolute URLs, each made from ``html.baseurl`` in ``_config.yml``.
  (``booktools.pipeline.stages``'s ``root`` stage writes the last three and the landing page.)
- ``sphinx_settings``: the extension's one Sphinx setting, ``book``, typed and validated (written by ``editions``).
- ``assets``: what the extension and the code outside Sphinx both name (the favicon, the Live code server's
  address), so that the landing page and ``make serve`` import no Sphinx.
- ``extension/``
"""
