"""The KaTeX render server starts even when Node listens a moment after it binds its socket.

``booktools.website.extension.katex_server`` works around sphinxcontrib-katex's start-up
race (a ``ConnectionRefusedError`` that failed a whole edition in CI). A stand-in for
Node, written in Python, binds the socket, waits, and only then listens: the library's
own start is refused, the book's connects and talks to it; a server that dies fails
with a message, not a hang.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
import textwrap
from pathlib import Path
from typing import Any

import pytest
from sphinxcontrib.katex import KaTeXError, KaTeXServer

from booktools.website.extension.katex_server import PatientKaTeXServer

# Binds the socket given after --socket, listens only after a pause, then echoes one message
# (and gives up after a few seconds when nobody connects).
SLOW_SERVER = textwrap.dedent(
    """
    import socket, sys, time
    path = sys.argv[sys.argv.index("--socket") + 1]
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(path)
    time.sleep(0.5)
    server.listen(1)
    server.settimeout(5)
    try:
        connection, _ = server.accept()
    except TimeoutError:
        sys.exit(0)
    connection.sendall(connection.recv(64))
    """
)


def stand_in(script: str) -> Any:
    """Return a server class whose ``build_command`` runs ``script`` instead of Node."""

    class StandIn(PatientKaTeXServer):
        @classmethod
        def build_command(cls, socket: Path | None = None, port: int | None = None) -> list[str]:
            return [sys.executable, "-c", script, "--socket", str(socket)]

    return StandIn


@pytest.fixture
def rundir() -> Any:
    folder = Path(tempfile.mkdtemp(prefix="katex-", dir="/tmp"))  # Unix socket paths must be short
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def test_the_library_alone_is_refused_between_bind_and_listen(rundir: Path) -> None:
    class LibraryStandIn(KaTeXServer):
        build_command = stand_in(SLOW_SERVER).build_command

    with pytest.raises(ConnectionRefusedError):
        LibraryStandIn.start_server_process(rundir, timeout=5.0)


def test_the_book_connects_once_the_server_listens(rundir: Path) -> None:
    process, sock = stand_in(SLOW_SERVER).start_server_process(rundir, timeout=10.0)
    try:
        sock.sendall(b"ping")
        assert sock.recv(64) == b"ping"
        assert sock.gettimeout() is None
    finally:
        sock.close()
        process.wait(timeout=10)


def test_a_server_that_exits_fails_with_its_exit_code(rundir: Path) -> None:
    with pytest.raises(KaTeXError, match=r"render server .* exited with 3"):
        stand_in("import sys; sys.exit(3)").start_server_process(rundir, timeout=10.0)


def test_a_server_that_never_listens_fails_after_the_timeout(rundir: Path) -> None:
    with pytest.raises(KaTeXError, match=r"did not listen within 1 s"):
        stand_in("import time; time.sleep(30)").start_server_process(rundir, timeout=1.0)
