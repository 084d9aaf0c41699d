"""The servers ``make serve`` starts (``booktools.servers.serve``) for the book's live code.

One module-wide pair of servers on free localhost ports: the site's web server and
the local Jupyter server. Without the token, or from another origin, the Jupyter
server and the token's source refuse. The servers are stopped at the end of the
module, also when a test fails, and no process of theirs is left.
"""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import urllib.error
import urllib.request

import psutil
import pytest
import websocket

from booktools.pipeline import stages
from booktools.project import Project
from booktools.servers import serve
from booktools.servers.serve import SERVER_INFO_PATH

PROJECT = Project.here()

OTHER_ORIGIN = "http://example.com"
REFUSED = {403, 404}


def request(url: str, method: str = "GET", headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:
    """Send a request; return the status, the headers and the body, whatever the status."""
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers or {}, method=method), timeout=10) as r:
            return r.status, dict(r.headers), r.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()


def test_the_kernel_server_refuses_requests_without_the_token_or_from_another_origin(live, site):
    api = f"{live.jupyter_url}/api/kernels"
    token = {"Authorization": f"token {live.token}"}
    assert request(api, headers=token)[0] == 200
    assert request(api)[0] == 403, "no token"
    assert request(api, headers={"Authorization": "token not-the-token"})[0] == 403, "a wrong token"
    # Jupyter answers a refused cross-origin API request with 404; nothing is started.
    assert request(api, "POST", {**token, "Origin": OTHER_ORIGIN})[0] in REFUSED, "another origin, even with the token"
    assert json.loads(request(api, headers=token)[2]) == [], "a kernel was started for another origin"
    events = f"{live.jupyter_url.replace('http', 'ws', 1)}/api/events/subscribe?token={live.token}"
    with pytest.raises(websocket.WebSocketBadStatusException):
        websocket.create_connection(events, origin=OTHER_ORIGIN, timeout=10)
    websocket.create_connection(events, origin=live.site_url, timeout=10).close()
    _, headers, _ = request(api, "OPTIONS", {"Origin": OTHER_ORIGIN, "Access-Control-Request-Method": "POST"})
    assert headers.get("Access-Control-Allow-Origin") in (None, live.site_url)
    _, headers, _ = request(api, headers={**token, "Origin": live.site_url})
    assert headers.get("Access-Control-Allow-Origin") == live.site_url, "the site's own origin is allowed"

    # The token's only source: make serve's web server, to the site's own pages.
    info = f"{live.site_url}{SERVER_INFO_PATH}"
    status, headers, body = request(info, headers={"Sec-Fetch-Site": "same-origin"})
    assert status == 200 and json.loads(body)["token"] == live.token
    assert "Access-Control-Allow-Origin" not in headers
    assert request(info, headers={"Sec-Fetch-Site": "cross-site"})[0] == 403, "another site's page"
    assert request(info.replace("127.0.0.1", "localhost"))[0] == 403, "another host name (DNS rebinding)"

    # Localhost only, and the token in no file of the site and not on a command line.
    server = psutil.Process(live.process.pid)
    listening = listening_addresses(server)
    assert listening and set(listening) == {"127.0.0.1"}, listening
    assert live.token not in " ".join(server.cmdline())
    assert not any(live.token.encode() in path.read_bytes() for path in site.rglob("*.js*") if path.is_file())


def listening_addresses(server: psutil.Process) -> list[str]:
    """The addresses ``server`` and its children listen on.

    A child may end while they are listed (the server runs short-lived helpers); one that
    has ended listens on nothing. The server itself must still be running.
    """
    addresses = [c.laddr.ip for c in server.net_connections("inet") if c.status == psutil.CONN_LISTEN]
    for child in server.children(recursive=True):
        try:
            connections = child.net_connections("inet")
        except psutil.NoSuchProcess:
            continue
        addresses += [c.laddr.ip for c in connections if c.status == psutil.CONN_LISTEN]
    return addresses


def test_make_serve_prints_the_address_serves_the_book_and_stops_everything_on_sigterm(site):
    """``make serve`` itself (``python -m booktools serve``): the command line's verb, as the Makefile runs it."""
    assert stages.is_current(PROJECT), "make serve would build the site first"
    command = [sys.executable, "-m", "booktools", "serve", "--port", "0"]
    process = subprocess.Popen(command, cwd=PROJECT.root, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    started: list[int] = []
    try:
        assert process.stdout is not None
        first = process.stdout.readline()
        found = re.match(r"Open (http://127\.0\.0\.1:\d+)/ ", first)
        assert found, first + (process.stdout.read() if process.poll() is not None else "")
        site_url = found.group(1)
        started = serve.process_tree(process.pid)
        assert request(f"{site_url}/en/index.html")[0] == 200
        status, _, body = request(f"{site_url}{SERVER_INFO_PATH}", headers={"Sec-Fetch-Site": "same-origin"})
        assert status == 200
        assert request(f"{json.loads(body)['baseUrl']}api/status", headers={"Origin": site_url})[0] == 403
    finally:
        process.send_signal(signal.SIGTERM)
        output, _ = process.communicate(timeout=60)
    assert process.returncode == 0 and output.rstrip().endswith("stopped"), output
    left = [pid for pid in started if psutil.pid_exists(pid) and psutil.Process(pid).status() != "zombie"]
    assert left == [], f"processes left behind by make serve: {left}"
