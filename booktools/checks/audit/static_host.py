"""The built site served as a static host serves it, for Lighthouse: gzip and cache headers, 127.0.0.1 only.

``http.server`` alone sends every file uncompressed and without caching headers,
which no host of a real site does, and Lighthouse would measure that. This server
answers like GitHub Pages or a CDN in front of a bucket:

- text (HTML, CSS, JavaScript, JSON, SVG, XML, plain text) gzipped when the
  request accepts it (``Content-Encoding: gzip``, ``Vary: Accept-Encoding``);
- ``Cache-Control``: pages are revalidated (``no-cache``), everything else (the
  theme's assets, which Sphinx names with a digest of their content, images,
  fonts) is kept for a year;
- ``ETag`` and ``Last-Modified``, answering ``304 Not Modified`` to a request that
  has the page already;
- a folder serves its ``index.html``; anything else missing is a ``404``.
"""

from __future__ import annotations

import functools
import gzip
import hashlib
import mimetypes
import posixpath
import urllib.parse
from contextlib import AbstractContextManager
from email.utils import formatdate
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler
from pathlib import Path

from booktools.runtime import static_server as static

COMPRESSED_TYPES = ("text/", "application/javascript", "application/json", "image/svg+xml", "application/xml")
PAGE_CACHE = "no-cache"
ASSET_CACHE = "public, max-age=31536000"
GZIP_LEVEL = 6
EXTRA_TYPES = {".js": "application/javascript", ".mjs": "application/javascript", ".woff2": "font/woff2"}


@functools.lru_cache(maxsize=1024)
def _gzipped(path: Path, mtime_ns: int) -> bytes:
    return gzip.compress(path.read_bytes(), compresslevel=GZIP_LEVEL, mtime=0)


def content_type(path: Path) -> str:
    """The ``Content-Type`` of a file, UTF-8 for text."""
    kind = EXTRA_TYPES.get(path.suffix) or mimetypes.guess_type(path.name)[0] or "application/octet-stream"
    if kind.startswith("text/") or kind in ("application/javascript", "application/json", "image/svg+xml"):
        return f"{kind}; charset=utf-8"
    return kind


def is_compressible(kind: str) -> bool:
    """Whether a static host gzips a response of this ``Content-Type``."""
    return kind.startswith(COMPRESSED_TYPES)


class StaticHostHandler(BaseHTTPRequestHandler):
    """Answer GET and HEAD from ``root`` (set by :func:`serving`) with a static host's headers."""

    root: Path
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - the base class's name
        pass

    def _file(self) -> Path | None:
        relative = posixpath.normpath(urllib.parse.unquote(urllib.parse.urlsplit(self.path).path)).lstrip("/")
        if relative.startswith(".."):
            return None
        path = self.root / relative
        if path.is_dir():
            path = path / "index.html"
        return path if path.is_file() else None

    def _answer(self, with_body: bool) -> None:
        path = self._file()
        if path is None:
            body = b"<!doctype html><title>404 Not Found</title><h1>404 Not Found</h1>"
            self.send_response(HTTPStatus.NOT_FOUND)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if with_body:
                self.wfile.write(body)
            return
        stat = path.stat()
        etag = '"' + hashlib.sha1(f"{path}:{stat.st_mtime_ns}:{stat.st_size}".encode()).hexdigest()[:16] + '"'
        kind = content_type(path)
        cache = PAGE_CACHE if path.suffix == ".html" else ASSET_CACHE
        if self.headers.get("If-None-Match") == etag:
            self.send_response(HTTPStatus.NOT_MODIFIED)
            self.send_header("ETag", etag)
            self.send_header("Cache-Control", cache)
            self.end_headers()
            return
        gzip_ok = "gzip" in self.headers.get("Accept-Encoding", "") and is_compressible(kind)
        body = _gzipped(path, stat.st_mtime_ns) if gzip_ok else path.read_bytes()
        self.send_response(HTTPStatus.OK)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", cache)
        self.send_header("ETag", etag)
        self.send_header("Last-Modified", formatdate(stat.st_mtime, usegmt=True))
        if is_compressible(kind):
            self.send_header("Vary", "Accept-Encoding")
        if gzip_ok:
            self.send_header("Content-Encoding", "gzip")
        self.end_headers()
        if with_body:
            self.wfile.write(body)

    def do_GET(self) -> None:
        """Send the file (or its folder's ``index.html``)."""
        self._answer(with_body=True)

    def do_HEAD(self) -> None:
        """Send the headers a GET would have."""
        self._answer(with_body=False)


def serving(root: Path) -> AbstractContextManager[str]:
    """Serve ``root`` on a free port of 127.0.0.1 while the block runs; yield its base URL (no final slash)."""
    return static.serving(type("SiteHandler", (StaticHostHandler,), {"root": root.resolve()}))
