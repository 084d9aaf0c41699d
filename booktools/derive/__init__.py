"""What is derived from the source pages and stored in the repository: the library, notebooks, outputs.

- ``library``: the ``#@save`` cells -> ``d2l_lib/<framework>.py`` (``python -m booktools lib``).
- ``provenance``: the header above each block of the library, naming its notebook, cell and section.
- ``notebooks``: one runnable notebook per page, language and framework (``python -m booktools notebooks``).
- ``outputs``: each derived notebook run headlessly, its outputs stored in the source page
  (``python -m booktools outputs``).
"""
