"""The provenance header above each block of ``d2l_lib``: where the block was saved from.

``make lib`` writes, above the statements one cell saves::

    # ---- from chapters/en/<page>.ipynb, cell <cell id>
    # ---- section: <heading above the cell> (<label of its section>)

This module is the only one that writes or reads those two lines:
``booktools.derive.library`` writes them and reads them back to name a drifted
definition; ``booktools.website.extension.api_links`` reads them to link each object of the
API page to the section that defines it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import PurePosixPath

__all__ = ["Provenance", "header", "read_headers"]

FROM = "# ---- from "
SECTION = "# ---- section: "
_FROM = re.compile(rf"^{re.escape(FROM)}(?P<notebook>.+), cell (?P<cell>\S+)\s*$")
_SECTION = re.compile(rf"^{re.escape(SECTION)}(?P<title>.*) \((?P<label>[^()]+)\)\s*$")


@dataclass(frozen=True)
class Provenance:
    """Where a block of the library comes from: its notebook, cell and section."""

    notebook: str  # chapters/en/<page>.ipynb
    cell_id: str
    title: str  # the heading above the cell
    label: str  # the label of the nearest labelled heading at or above it

    @property
    def page(self) -> str:
        """The page's file name without suffix: ``attention-scoring-functions``."""
        return PurePosixPath(self.notebook).stem

    @property
    def origin(self) -> str:
        """How messages name the block's place: notebook, cell and section."""
        return f"{self.notebook}, cell {self.cell_id}; {self.title} ({self.label})"


def header(provenance: Provenance) -> str:
    """The two header lines of a block, each ending in a newline."""
    return f"{FROM}{provenance.notebook}, cell {provenance.cell_id}\n{SECTION}{provenance.title} ({provenance.label})\n"


def read_headers(text: str) -> list[tuple[int, Provenance]]:
    """The headers of a generated module: (line number of its first line, provenance), in order."""
    lines = text.splitlines()
    found = []
    for number, line in enumerate(lines, start=1):
        source = _FROM.match(line)
        section = _SECTION.match(lines[number]) if source and number < len(lines) else None
        if source and section:
            found.append((number, Provenance(source["notebook"], source["cell"], section["title"], section["label"])))
    return found
