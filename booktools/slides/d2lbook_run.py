"""Run d2lbook's own slide generator on notebooks; runs in ``.venv-d2lbook``, not in ``.venv``.

``booktools.slides.decks`` calls this script with the Python of the isolated d2lbook
environment (``booktools/slides/requirements.txt``), once for all decks::

    .venv-d2lbook/bin/python booktools/slides/d2lbook_run.py IN.ipynb OUT.ipynb [IN OUT ...]

Each derived notebook ``IN`` (one page, language and framework, with its
outputs) becomes the slide notebook ``OUT`` through ``d2lbook.slides.Slides.generate``:
d2lbook keeps the text inside the slide marks, starts a slide at each ``[**``,
merges the code cells that follow, drops comments and ``#@save`` and sets each
cell's ``slideshow`` metadata. The script imports nothing of the book's own
environment. d2lbook reads its settings from a ``config.ini`` in the working
folder; a scratch folder holds a minimal one.
"""

from __future__ import annotations

import os
import sys
import tempfile

import nbformat
from d2lbook import config, slides  # type: ignore[import-not-found,unused-ignore]

# d2lbook's Slides needs a [slides] section naming a repository (its upload target, unused
# here) and a source folder holding an index page.
CONFIG_INI = "[project]\ntitle = slides\n[slides]\ngithub_repo = pytorch, unused/unused\n"


def generate(pairs: list[tuple[str, str]]) -> int:
    """Write the slide notebook of each ``(source, target)`` pair; return how many have slides."""
    pairs = [(os.path.abspath(source), os.path.abspath(target)) for source, target in pairs]
    written = 0
    here = os.getcwd()
    with tempfile.TemporaryDirectory() as scratch:
        os.chdir(scratch)
        try:
            with open("config.ini", "w", encoding="utf-8") as ini:
                ini.write(CONFIG_INI)
            with open("index.md", "w", encoding="utf-8") as index:
                index.write("# slides\n")
            generator = slides.Slides(config.Config())
            for source, target in pairs:
                generator.generate(nbformat.read(source, as_version=4), target)
                written += os.path.exists(target)
        finally:
            os.chdir(here)
    return written


def main(argv: list[str]) -> int:
    """Command-line entry point: pairs of source and target notebooks."""
    if not argv or len(argv) % 2:
        print("usage: d2lbook_run.py IN.ipynb OUT.ipynb [IN OUT ...]", file=sys.stderr)
        return 2
    pairs = list(zip(argv[0::2], argv[1::2]))
    written = generate(pairs)
    print(f"d2lbook.slides: {written} of {len(pairs)} notebooks have slides")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
