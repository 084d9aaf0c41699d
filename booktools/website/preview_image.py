"""The site's preview image (og:image): attention weights as a heatmap, drawn at build time.

Where a link to a page is shared, the preview shows this picture: the masked
softmax's weights of a few queries over ten keys, each row masked past its valid
length, in the colours of the book's heatmaps (``show_heatmaps``). It has no text,
so one image serves every edition; it is drawn with matplotlib (in the book's
environment already) from fixed numbers, so every build writes the same PNG, at
the size link previews use (1200 x 630 pixels), to ``_build/html/preview.png``
(``booktools.project.SITE_FILES``).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

WIDTH, HEIGHT, DPI = 1200, 630, 100
QUERIES, KEYS = 6, 10
VALID_LENGTHS = (10, 8, 6, 9, 4, 7)  # one per query: the keys past it get no weight
COLOURS = "Reds"  # show_heatmaps' default colour map


def preview_weights() -> np.ndarray:
    """Return the picture's attention weights: a masked softmax of fixed scores, one row per query."""
    scores = np.random.default_rng(0).normal(scale=1.5, size=(QUERIES, KEYS))
    masked = np.where(np.arange(KEYS) < np.array(VALID_LENGTHS)[:, None], scores, -np.inf)
    weights = np.exp(masked - masked.max(axis=1, keepdims=True))
    return np.asarray(weights / weights.sum(axis=1, keepdims=True))


def write_preview_image(path: Path) -> Path:
    """Draw the preview image into ``path`` (a PNG of ``WIDTH`` x ``HEIGHT`` pixels); return ``path``."""
    from matplotlib.figure import Figure  # no pyplot: no backend, whatever MPLBACKEND says

    figure = Figure(figsize=(WIDTH / DPI, HEIGHT / DPI), dpi=DPI, facecolor="white")
    axes = figure.add_axes((0.04, 0.0762, 0.92, 0.8476))  # a white margin of 48 pixels all round
    axes.imshow(preview_weights(), cmap=COLOURS, aspect="auto", interpolation="nearest", vmin=0.0)
    axes.set_axis_off()
    figure.savefig(path, dpi=DPI, format="png", metadata={"Software": None})
    return path
