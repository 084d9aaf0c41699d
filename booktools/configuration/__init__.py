"""The book's configuration files read into typed, validated objects; a low layer (no other package of booktools).

- ``schema``: typed schemas for the YAML files; a wrong key names the file, the key and what was expected.
- ``config_file``: the keys of ``_config.yml`` booktools reads (``editions``, ``repository``, ``parse``).
- ``toc``: ``_toc.yml``'s reading order, read as plain YAML (no Jupyter Book library).
"""
