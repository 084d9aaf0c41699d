"""The MIME types of the display data with which the book's code describes what it shows.

The library and the pages cannot import ``booktools``, so they write the same strings;
everything in ``booktools`` that reads such an output takes its type from here.

- :data:`HEATMAP_MIME`: ``show_heatmaps``' description of the weights it draws, from which
  the site writes the figure's alt text (``booktools.website.heatmap_alt_text``).
- :data:`FIGURES_MIME`: ``record_figures``' record of the figures a cell measured, which the
  prose quotes (``booktools.sources.measured``).
"""

from __future__ import annotations

__all__ = ["FIGURES_MIME", "HEATMAP_MIME"]

HEATMAP_MIME = "application/vnd.d2l.heatmaps+json"
FIGURES_MIME = "application/vnd.d2l.figures+json"
