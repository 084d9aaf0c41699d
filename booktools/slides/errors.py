"""The slides' one error: a tool the decks need is missing, or one of them failed.

Kept apart from ``booktools.slides.decks`` so that the modules it imports (``mathjax``) raise it
too, and ``booktools.pipeline.stage_runs`` reports it as a line, not a traceback.
"""

from __future__ import annotations


class SlidesError(Exception):
    """A tool the slides need is missing, or one of them failed."""
