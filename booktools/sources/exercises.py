"""The code exercises' cells: which tags mark them, and which of them print in the edition's language.

A code exercise has a starter cell the reader fills in (tag ``d2l-starter``), a check cell,
``d2l.check_exercise(<id>, <answer>, lang=<language>)`` (tag ``d2l-check``; the solution ends
with one too), and a hint cell, ``d2l.hint_exercise(<id>, lang=<language>)`` (tag
``d2l-hint``). The checks and hints are ``d2l_lib.exercises``; they print in the language
their ``lang=`` names, so a check or hint cell of a translated page has the same code as
English except for that argument, and outputs that differ from English in their words but not
in their shape (:data:`EDITION_OUTPUT_TAGS`).
"""

from __future__ import annotations

STARTER_TAG = "d2l-starter"
CHECK_TAG = "d2l-check"
HINT_TAG = "d2l-hint"
EDITION_OUTPUT_TAGS = frozenset({CHECK_TAG, HINT_TAG})  # cells whose outputs are in the edition's language
LANGUAGE_ARGUMENT = "lang"  # the keyword argument that names the edition's language in a call
