"""A folder served over HTTP on 127.0.0.1 while a block runs: the static servers of the build and the checks.

The PDF printer (``booktools.pdf.printer``) and the tests read the built site through
:func:`serving_folder`; the audit (``booktools.checks.audit.static_host``) passes its own
handler, with a static host's compression and cache headers, to :func:`serving`. Each
server takes a free port, answers only on 127.0.0.1, serves files and nothing else (no
code runs on a request, hence no token, unlike ``serve``'s Jupyter server), and stops
when the block ends, also when it ends with an error.
"""

from __future__ import annotations

import functools
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from http.server import BaseHTTPRequestHandler, SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

HOST = "127.0.0.1"


class QuietHandler(SimpleHTTPRequestHandler):
    """``http.server``'s file handler, without a log line per request."""

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
        pass


class LocalServer(ThreadingHTTPServer):
    """A threaded HTTP server for which a client that hangs up mid-answer is no error.

    A browser drops requests it no longer needs (a page closed, a print finished): the write then fails with a
    broken pipe or a reset, which ``socketserver`` would print as a traceback in the middle of a test run.
    Any other error of a request is printed as before.
    """

    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        if isinstance(sys.exc_info()[1], ConnectionError):
            return
        super().handle_error(request, client_address)


@contextmanager
def serving(handler: Callable[..., BaseHTTPRequestHandler]) -> Iterator[str]:
    """Serve with ``handler`` on a free port of 127.0.0.1 while the block runs; yield the base URL (no final slash)."""
    server = LocalServer((HOST, 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://{HOST}:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def serving_folder(folder: Path) -> AbstractContextManager[str]:
    """Serve the files of ``folder`` while the block runs; yield the base URL."""
    return serving(functools.partial(QuietHandler, directory=str(folder)))
