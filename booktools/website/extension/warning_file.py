"""Write every warning of a build to a file of its own, as ``sphinx-build --warning-file`` does.

``jupyter-book build`` has no option for Sphinx's warning file, so a build's
problems could only be told by reading its whole output, where any library a page
imports may print lines of its own (TensorFlow's start-up notes begin with
``WARNING:`` on some CPUs). With the setting ``warning_file`` set
(``booktools.website.sphinx_settings``), this extension tees
Sphinx's warning stream into that file: what lands there is exactly what Sphinx
and its extensions report as warnings and errors (with their location), the lines
that ``-W`` counts, and nothing that a dependency prints. ``booktools.website.jupyter_book`` reads
it, with the exit status of ``jupyter-book build``.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import IO, Any

from sphinx.application import Sphinx
from sphinx.config import Config
from sphinx.util.console import strip_escape_sequences
from sphinx.util.logging import NAMESPACE, WarningStreamHandler

from booktools.website.sphinx_settings import settings_of


class WarningFileError(RuntimeError):
    """Sphinx's warning stream is not where this extension expects it."""


class _Tee:
    """A stream that writes to Sphinx's warning stream and, without colour codes, to a file."""

    def __init__(self, stream: Any, file: IO[str]) -> None:
        self.stream = stream
        self.file = file

    def write(self, text: str) -> None:
        self.stream.write(text)
        if not self.file.closed:  # closed at the end of the build; a later warning still reaches the log
            self.file.write(strip_escape_sequences(text))
            self.file.flush()

    def flush(self) -> None:
        if hasattr(self.stream, "flush"):
            self.stream.flush()
        if not self.file.closed:
            self.file.flush()


def warning_handler() -> WarningStreamHandler:
    """Return the handler Sphinx writes its warnings with (one per application)."""
    handlers = [h for h in logging.getLogger(NAMESPACE).handlers if isinstance(h, WarningStreamHandler)]
    if len(handlers) != 1:
        raise WarningFileError(
            f"expected one Sphinx warning handler on the {NAMESPACE!r} logger, found {len(handlers)}; "
            "update booktools/website/extension/warning_file.py for this Sphinx"
        )
    return handlers[0]


def tee_warnings(app: Sphinx, config: Config) -> None:
    """Tee the warning stream into the settings' ``warning_file`` (emptied first), when it is set."""
    path = settings_of(config).warning_file
    if not path:
        return
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    handler = warning_handler()
    file = open(path, "w", encoding="utf-8")  # open for the whole build, closed at its end
    handler.setStream(_Tee(handler.stream, file))
    app.connect("build-finished", lambda _app, _exception: file.close(), priority=1000)


def setup_warning_file(app: Sphinx) -> None:
    """Register the tee (called by ``booktools.website.extension.setup``)."""
    # First among the config-inited handlers, so that their warnings are in the file too.
    app.connect("config-inited", tee_warnings, priority=0)
