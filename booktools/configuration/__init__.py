"""The book's configuration: its files read into typed, validated objects, and the quality bars it is held to;
a low layer (no other package of booktools).

- ``schema``: typed schemas for the YAML files; a wrong key names the file, the key and what was expected.
- ``config_file``: the keys of ``_config.yml`` booktools reads (``editions``, ``repository``, ``parse``).
- ``toc``: ``_toc.yml``'s reading order, read as plain YAML (no Jupyter Book library).
- ``bars``: every quality bar's value, what it holds and what enforces it (the word caps: each page's, in
  ``chapters/pages.yml``).
"""
