"""Serve the built book beside a local Jupyter server: a web server for ``_build/html`` and Jupyter (``make serve``).

This is the kernel side of the book's "Live code" button (``booktools.website.extension.live``). Both
servers listen on 127.0.0.1 only. The Jupyter server (kernel ``d2l-book`` for
every request, ``booktools.servers.lab``) requires a token drawn afresh for each run,
passed to it in its environment (not on its command line), and refuses requests
from any origin but the web server's, even with the token. The site's pages get
the token from the web server alone: it answers ``SERVER_INFO_PATH`` with the
Jupyter server's address and token, as JSON without CORS headers, to requests
addressed to its own host name and not made from another site, so no other
origin can read it; the token is in no file.

Usage::

    python -m booktools serve [--port N] [--jupyter-port N]

prints the URL to open and serves until interrupted. Tests use :func:`serving`.
"""

from __future__ import annotations

import functools
import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from jupyter_server.auth.identity import IdentityProvider

from booktools.pipeline import stages
from booktools.project import Project
from booktools.servers.lab import server_options
from booktools.website.assets import SERVER_INFO_PATH  # the page asks there (live-code.js)

HOST = "127.0.0.1"
START_TIMEOUT_S = 90.0
STOP_TIMEOUT_S = 20.0


def free_port() -> int:
    """Return a TCP port on 127.0.0.1 that is free now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((HOST, 0))
        return int(sock.getsockname()[1])


@dataclass
class Servers:
    """The running servers: the site's URL, the Jupyter server's URL, token and process."""

    site_url: str
    jupyter_url: str
    token: str = field(repr=False)
    process: subprocess.Popen[bytes]
    log: Path

    def info(self) -> dict[str, str]:
        """What a page needs to reach the Jupyter server (served at ``SERVER_INFO_PATH``)."""
        return {
            "baseUrl": f"{self.jupyter_url}/",
            "wsUrl": self.jupyter_url.replace("http://", "ws://", 1) + "/",
            "token": self.token,
        }


class SiteHandler(SimpleHTTPRequestHandler):
    """Serves the site's files, and the Jupyter server's address and token to the site's own pages."""

    info: dict[str, str] = {}

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
        pass

    def end_headers(self) -> None:
        """Send every answer with ``Cache-Control: no-store`` for the server info, as is otherwise."""
        if self.path.split("?", 1)[0] == SERVER_INFO_PATH:
            self.send_header("Cache-Control", "no-store")
        super().end_headers()

    def _own_request(self) -> bool:
        host = self.headers.get("Host", "")
        port = self.server.server_address[1]  # type: ignore[index]  # an IPv4 (host, port) pair
        expected = f"{HOST}:{port}"
        # The Host check defeats DNS rebinding; Sec-Fetch-Site, sent by browsers, another site's fetches.
        return host == expected and self.headers.get("Sec-Fetch-Site", "same-origin") in {"same-origin", "none"}

    def do_GET(self) -> None:
        """Answer the server info to the site's pages only; serve files otherwise."""
        if self.path.split("?", 1)[0] != SERVER_INFO_PATH:
            super().do_GET()
            return
        if not self._own_request():
            self.send_error(403, "only the site's own pages may ask")
            return
        body = json.dumps(self.info).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


class SiteOnlyIdentityProvider(IdentityProvider):
    """Token authentication that checks the origin too.

    Jupyter's default skips the origin check for token-authenticated requests; here
    a request from a page of another origin is refused even with the token.
    """

    def should_check_origin(self, handler: Any) -> bool:
        """Check the origin of every request (``ServerApp.allow_origin``: the site's)."""
        return True


# The class the Jupyter server imports by name.
IDENTITY_PROVIDER = f"{SiteOnlyIdentityProvider.__module__}.{SiteOnlyIdentityProvider.__qualname__}"


def jupyter_command(port: int, origin: str, root_dir: Path) -> list[str]:
    """Return the command line of the local Jupyter server (its token comes from the environment)."""
    return [
        sys.executable,
        "-m",
        "jupyter_server",
        f"--ServerApp.ip={HOST}",
        f"--ServerApp.port={port}",
        "--ServerApp.port_retries=0",
        "--ServerApp.open_browser=False",
        f"--ServerApp.allow_origin={origin}",
        f"--ServerApp.identity_provider_class={IDENTITY_PROVIDER}",
        "--ServerApp.allow_remote_access=False",
        f"--ServerApp.root_dir={root_dir}",
        *server_options(),
    ]


def wait_until_ready(url: str, token: str, process: subprocess.Popen[bytes], log: Path) -> None:
    """Wait until the Jupyter server answers ``/api/status`` with the token."""
    deadline = time.monotonic() + START_TIMEOUT_S
    request = urllib.request.Request(f"{url}/api/status", headers={"Authorization": f"token {token}"})
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the Jupyter server exited ({process.returncode}); log: {log}")
        try:
            with urllib.request.urlopen(request, timeout=2) as response:
                if response.status == 200:
                    return
        except (urllib.error.URLError, OSError):
            pass
        time.sleep(0.25)
    raise RuntimeError(f"the Jupyter server did not start in {START_TIMEOUT_S:.0f} s; log: {log}")


def process_tree(pid: int) -> list[int]:
    """Return ``pid`` and its descendants' ids (the kernels run in sessions of their own)."""
    import psutil  # type: ignore[import-untyped]

    try:
        root = psutil.Process(pid)
        return [pid, *(child.pid for child in root.children(recursive=True))]
    except psutil.NoSuchProcess:
        return []


def stop(process: subprocess.Popen[bytes]) -> None:
    """Stop the Jupyter server, its kernels included, and wait until every one is gone."""
    import psutil

    pids = process_tree(process.pid)
    if process.poll() is None:
        try:
            os.killpg(process.pid, signal.SIGTERM)  # the server shuts its kernels down
        except ProcessLookupError:
            pass
        try:
            process.wait(timeout=STOP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    survivors = []
    for pid in pids:
        try:
            survivors.append(psutil.Process(pid))
        except psutil.NoSuchProcess:
            continue
    for survivor in survivors:
        try:
            survivor.kill()
        except psutil.NoSuchProcess:
            pass
    psutil.wait_procs(survivors, timeout=STOP_TIMEOUT_S)


@contextmanager
def serving(
    project: Project, site: Path, port: int = 0, jupyter_port: int = 0, log: Path | None = None
) -> Iterator[Servers]:
    """Run the web server for ``site`` and the Jupyter server; stop both, every kernel included, on exit."""
    handler: type[SiteHandler] = type("Handler", (SiteHandler,), {"info": {}})
    web = ThreadingHTTPServer((HOST, port), functools.partial(handler, directory=str(site)))
    site_url = f"http://{HOST}:{web.server_address[1]}"
    jupyter_port = jupyter_port or free_port()
    jupyter_url = f"http://{HOST}:{jupyter_port}"
    token = secrets.token_urlsafe(32)
    log = log or project.work_dir("serve") / "jupyter.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "JUPYTER_TOKEN": token}
    thread = threading.Thread(target=web.serve_forever, daemon=True)
    with log.open("wb") as output:
        process = subprocess.Popen(
            jupyter_command(
                jupyter_port, site_url, project.notebooks_dir if project.notebooks_dir.is_dir() else project.root
            ),
            env=env,
            cwd=project.root,
            stdout=output,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,  # its own process group, stopped as a whole
        )
    servers = Servers(site_url, jupyter_url, token, process, log)
    handler.info = servers.info()
    try:
        thread.start()
        wait_until_ready(jupyter_url, token, process, log)
        yield servers
    finally:
        try:
            stop(process)
        finally:
            if thread.is_alive():
                web.shutdown()
            web.server_close()


def _interrupt(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt


def run(project: Project, port: int = 8000, jupyter_port: int = 0) -> int:
    """``python -m booktools serve``: build the site if stale, then serve it with a Jupyter server until stopped."""
    if not stages.is_current(project):
        print("the site is missing or stale: building what changed first (make book)", flush=True)
        if stages.bring_up_to_date(project) != 0:
            return 1
    site = project.site_dir
    # Ctrl-C and `kill` both end the `with` block, which stops the servers and kernels.
    signal.signal(signal.SIGTERM, _interrupt)
    try:
        with serving(project, site, port, jupyter_port) as servers:
            print(f"Open {servers.site_url}/ (its Jupyter server, for live code: {servers.jupyter_url}).")
            print("Press Ctrl-C to stop.", flush=True)
            while True:
                time.sleep(3600)
    except KeyboardInterrupt:
        print("stopped")
    return 0
