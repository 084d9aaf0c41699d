"""The library's own messages, ``d2l_lib/messages/<lang>.json``: every edition has English's keys.

The quiz's controls speak the reader's language in Colab too, so their words ship with
``d2l_lib`` as package data, one file per edition, beside the interface strings of the
site (``booktools.sources.strings``). The translation checker holds every edition's file
to English's keys: none missing, none unknown.
"""

from __future__ import annotations

import json

from booktools.project import Project

__all__ = ["check_library_messages"]


def _keys(data: object, prefix: str = "") -> set[str]:
    if not isinstance(data, dict):
        return {prefix}
    return {key for name, value in data.items() for key in _keys(value, f"{prefix}{name}.")}


def check_library_messages(project: Project) -> list[str]:
    """Check that every edition has the library's messages, with the same keys as English; return the problems."""
    problems = []
    files = {code: project.library_messages_file(code) for code in project.editions()}
    english = files.pop(next(iter(files)))
    try:
        want = _keys(json.loads(english.read_text(encoding="utf-8")))
    except (OSError, ValueError) as error:
        return [f"{project.relative(english)}: {error}"]
    for path in files.values():
        name = project.relative(path)
        try:
            have = _keys(json.loads(path.read_text(encoding="utf-8")))
        except (OSError, ValueError) as error:
            problems.append(f"{name}: {error}")
            continue
        problems += [f"{name}: missing {key.rstrip('.')}" for key in sorted(want - have)]
        problems += [f"{name}: unknown {key.rstrip('.')} (not in English)" for key in sorted(have - want)]
    return problems
