"""Start sphinxcontrib-katex's render server without its start-up race.

sphinxcontrib-katex 0.9.11 starts its Node render server and connects to the server's
Unix socket once, as soon as the socket *file* exists. Node creates that file when it
binds the socket and listens a moment later; a connection in between is refused, and
the whole edition fails with ``ConnectionRefusedError`` (seen in CI, where three
editions and the tests share two cores). Here the connection is retried until the
server listens, Node exits, or the start-up time is over. Both of the library's time
limits (5 s each) are raised for the same loaded machines; they are the module
constants its error messages name.
"""

from __future__ import annotations

import socket
import subprocess
import time
from pathlib import Path

from sphinxcontrib import katex as katex_extension
from sphinxcontrib.katex import KaTeXError, KaTeXServer

STARTUP_TIMEOUT = 60.0  # seconds for Node to load KaTeX and listen
RENDER_TIMEOUT = 60.0  # seconds for one formula
RETRY_PAUSE = 0.005  # seconds between two connection attempts


class PatientKaTeXServer(KaTeXServer):  # type: ignore[misc]  # sphinxcontrib-katex has no type information
    """sphinxcontrib-katex's render server, connected to only once it listens."""

    @classmethod
    def start_server_process(cls, rundir: Path, timeout: float) -> tuple[subprocess.Popen[bytes], socket.socket]:
        """Start Node on ``rundir/katex.sock`` and return the process and a connected socket.

        Raises:
            sphinxcontrib.katex.KaTeXError: if Node exits or does not listen within ``timeout`` seconds.
        """
        path = rundir / "katex.sock"
        command = cls.build_command(socket=path)
        process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, cwd=rundir)
        deadline = time.monotonic() + timeout
        while True:
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                sock.settimeout(max(deadline - time.monotonic(), RETRY_PAUSE))
                sock.connect(str(path))
            except (FileNotFoundError, ConnectionRefusedError, TimeoutError):
                sock.close()
            else:
                sock.settimeout(None)
                return process, sock
            exited = process.poll()
            if exited is not None or time.monotonic() > deadline:
                process.kill()
                process.wait()
                problem = "did not listen" if exited is None else f"exited with {exited}"
                raise KaTeXError(f"the KaTeX render server ({' '.join(command)}) {problem} within {timeout:.0f} s")
            time.sleep(RETRY_PAUSE)


def start_render_server(katex_js: Path) -> None:
    """Start the render server that ``sphinxcontrib.katex.render_latex`` uses, once per process.

    Args:
        katex_js: KaTeX's ``katex.min.js``, which the server loads.
    """
    katex_extension.STARTUP_TIMEOUT = STARTUP_TIMEOUT
    katex_extension.RENDER_TIMEOUT = RENDER_TIMEOUT
    if KaTeXServer.katex_server is None:
        KaTeXServer.katex_path = str(katex_js)
        KaTeXServer.katex_server = PatientKaTeXServer.start()
