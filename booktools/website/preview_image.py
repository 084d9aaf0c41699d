"""The site's preview image (og:image): attention weights as a heatmap, drawn at build time.

Where a link to a page is shared, the preview shows this picture: the masked
softmax's weights of a few queries over ten keys, each row masked past its valid
length, in the colours of the book's heatmaps (``show_heatmaps``: matplotlib's
``Reds``, ColorBrewer's nine reds, interpolated). It has no text, so one image
serves every edition; it is drawn with Pillow from fixed numbers, so every build
writes the same PNG, at the size link previews use (1200 x 630 pixels), to
``_build/html/preview.png`` (``booktools.project.SITE_FILES``).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

WIDTH, HEIGHT, MARGIN = 1200, 630, 48
QUERIES, KEYS = 6, 10
VALID_LENGTHS = (10, 8, 6, 9, 4, 7)  # one per query: the keys past it get no weight
# matplotlib's "Reds" (show_heatmaps' colour map) is these ColorBrewer colours, evenly spaced from 0 to 1.
REDS = ("#fff5f0", "#fee0d2", "#fcbba1", "#fc9272", "#fb6a4a", "#ef3b2c", "#cb181d", "#a50f15", "#67000d")


def preview_weights() -> np.ndarray:
    """Return the picture's attention weights: a masked softmax of fixed scores, one row per query."""
    scores = np.random.default_rng(0).normal(scale=1.5, size=(QUERIES, KEYS))
    masked = np.where(np.arange(KEYS) < np.array(VALID_LENGTHS)[:, None], scores, -np.inf)
    weights = np.exp(masked - masked.max(axis=1, keepdims=True))
    return np.asarray(weights / weights.sum(axis=1, keepdims=True))


def red(value: float) -> tuple[int, int, int]:
    """Return the colour of ``value`` (0 to 1) in ``REDS``, interpolated linearly."""
    anchors = np.array([[int(colour[i : i + 2], 16) for i in (1, 3, 5)] for colour in REDS], dtype=float)
    position = np.linspace(0.0, 1.0, len(REDS))
    r, g, b = (round(float(np.interp(value, position, anchors[:, channel]))) for channel in range(3))
    return r, g, b


def write_preview_image(path: Path) -> Path:
    """Draw the preview image into ``path`` (a PNG of ``WIDTH`` x ``HEIGHT`` pixels); return ``path``.

    Each weight is a cell, its colour scaled to the largest weight, as ``show_heatmaps`` draws them.
    """
    from PIL import Image, ImageDraw

    weights = preview_weights()
    image = Image.new("RGB", (WIDTH, HEIGHT), "white")
    draw = ImageDraw.Draw(image)
    cell_width, cell_height = (WIDTH - 2 * MARGIN) / KEYS, (HEIGHT - 2 * MARGIN) / QUERIES
    for row in range(QUERIES):
        for column in range(KEYS):
            left, top = MARGIN + column * cell_width, MARGIN + row * cell_height
            box = (round(left), round(top), round(left + cell_width) - 1, round(top + cell_height) - 1)
            draw.rectangle(box, fill=red(weights[row, column] / weights.max()))
    image.save(path, format="PNG", optimize=True)
    return path
