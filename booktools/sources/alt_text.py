"""Each edition's alt-text templates, ``chapters/<lang>/alt_text.yml``, read and validated.

The site describes every figure of ``show_heatmaps`` in words, from the figure's
description of its weights (``booktools.website.heatmap_alt_text`` writes the sentence).
The words are the edition's: its ``alt_text.yml`` holds one template per kind of phrase,
translated like the rest of the edition. Each template must use exactly its placeholders;
loading the file refuses a missing or unknown one, naming the key.
"""

from __future__ import annotations

import string
from dataclasses import dataclass, field
from typing import Any

from booktools.configuration.schema import load
from booktools.project import Project

__all__ = ["AltTextFile", "HeatmapText", "edition_heatmap_text", "load_alt_text"]


def _placeholders(*names: str) -> Any:
    """Field metadata: the template must use exactly ``names``, and may use no other placeholder."""
    expected = set(names)

    def check(template: str) -> str:
        try:
            used = {name for _, name, _, _ in string.Formatter().parse(template) if name is not None}
        except ValueError as error:
            raise ValueError(f"not a valid template ({error}); write a literal brace as {{{{ or }}}}") from error
        if used != expected:
            missing, unknown = sorted(expected - used), sorted(used - expected)
            problems = [f"missing {{{name}}}" for name in missing] + [f"unknown {{{name}}}" for name in unknown]
            wanted = ", ".join(f"{{{name}}}" for name in sorted(expected)) or "no placeholder"
            raise ValueError(f"{'; '.join(problems)} (this template takes {wanted})")
        return template

    return field(metadata={"check": check})


@dataclass(frozen=True)
class HeatmapText:
    """One edition's templates for the alt text of a grid of heatmaps (filled by ``website.heatmap_alt_text``).

    ``english_placeholder`` is no switch of the build, which uses the templates as written either
    way: it declares that an edition's templates are still a copy of English's, waiting for a
    translation. ``tests/tooling/test_alt_text.py`` fails an edition other than English whose
    templates are English's without the flag, and one that keeps the flag once translated.
    """

    # The whole figure: a single heatmap, and a grid of them. {description}: the panels' sentences.
    single: str = _placeholders("queries", "keys", "description")
    grid: str = _placeholders("rows", "columns", "queries", "keys", "description")
    # One panel of a grid, and every panel of a grid whose panels all look alike.
    panel: str = _placeholders("row", "column", "description")
    every_panel: str = _placeholders("description")
    # What one query, a run of queries or every query attends to. {keys}: the key phrases below.
    query: str = _placeholders("query", "keys")
    queries: str = _placeholders("first", "last", "keys")
    every_query: str = _placeholders("keys")
    # Which keys: one, two neighbours, a longer range, all of them, none.
    key: str = _placeholders("key")
    two_keys: str = _placeholders("first", "last")
    keys: str = _placeholders("first", "last")
    every_key: str = _placeholders()
    no_key: str = _placeholders()
    # Between the phrases of a panel's queries, and between the key phrases of one query.
    query_separator: str = _placeholders()
    key_separator: str = _placeholders()
    # True while the templates are a copy of English's waiting for a translation (a test reads it).
    english_placeholder: bool = False


@dataclass(frozen=True)
class AltTextFile:
    """``chapters/<lang>/alt_text.yml``: one edition's alt-text templates."""

    heatmaps: HeatmapText


def load_alt_text(code: str, project: Project) -> AltTextFile:
    """Read and validate the edition ``code``'s ``chapters/<code>/alt_text.yml``.

    Raises:
        booktools.configuration.schema.ConfigError: naming the key and what was expected.
    """
    path = project.alt_text_file(code)
    return load(path, AltTextFile, project.relative(path))


def edition_heatmap_text(code: str, project: Project) -> HeatmapText | None:
    """Return the heatmap templates of the edition ``code``, or None if the edition has no alt-text file.

    Raises:
        booktools.configuration.schema.ConfigError: if ``chapters/<code>/alt_text.yml`` is invalid.
    """
    if not project.alt_text_file(code).is_file():
        return None
    return load_alt_text(code, project).heatmaps
