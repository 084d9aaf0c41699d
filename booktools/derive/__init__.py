"""What is derived from the source pages: the library, notebooks and outputs, stored in the repository,
and the assignments for instructors, written under ``_build/``.

- ``library``: the ``#@save`` cells -> ``d2l_lib/<framework>.py`` (``python -m booktools lib``).
- ``provenance``: the header above each block of the library, naming its notebook, cell and section.
- ``notebooks``: one runnable notebook per page, language and framework (``python -m booktools notebooks``).
- ``outputs``: each derived notebook run headlessly, its outputs stored in the source page
  (``python -m booktools outputs``).
- ``assignments``: the exercises as assignments for instructors, per edition and framework
  (``python -m booktools assignment``).
- ``exercise_cells``: one derived notebook's exercises as the student's release and nbgrader's source.
"""
