"""The static server of the build and the checks (``booktools.runtime.static_server``): on 127.0.0.1, for one block."""

from __future__ import annotations

import urllib.error
import urllib.request
from pathlib import Path

import pytest

from booktools.runtime.static_server import LocalServer, QuietHandler, serving_folder


def fetch(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=5) as response:
        return bytes(response.read())


def test_a_folder_is_served_on_localhost_until_the_block_ends(tmp_path: Path):
    (tmp_path / "page.html").write_text("<p>hello</p>", encoding="utf-8")
    with serving_folder(tmp_path) as url:
        assert url.startswith("http://127.0.0.1:")
        assert fetch(f"{url}/page.html") == b"<p>hello</p>"
    with pytest.raises(urllib.error.URLError):
        fetch(f"{url}/page.html")


def test_the_server_stops_when_the_block_fails(tmp_path: Path):
    with pytest.raises(RuntimeError, match="the block failed"), serving_folder(tmp_path) as url:
        raise RuntimeError("the block failed")
    with pytest.raises(urllib.error.URLError):
        fetch(f"{url}/")


def printed_on(error: Exception, capsys: pytest.CaptureFixture[str]) -> str:
    """What the server prints when a request's handling raises ``error``."""
    server = LocalServer(("127.0.0.1", 0), QuietHandler)
    try:
        try:
            raise error
        except type(error):
            server.handle_error(None, ("127.0.0.1", 1))
    finally:
        server.server_close()
    return capsys.readouterr().err


@pytest.mark.parametrize("error", [BrokenPipeError, ConnectionResetError])
def test_a_client_that_hangs_up_prints_no_traceback(error: type[Exception], capsys: pytest.CaptureFixture[str]):
    assert printed_on(error("the browser dropped the request"), capsys) == ""


def test_any_other_error_of_a_request_is_still_printed(capsys: pytest.CaptureFixture[str]):
    assert "ValueError: a bug in a handler" in printed_on(ValueError("a bug in a handler"), capsys)
