"""The browser client's files, read once when the server starts and kept in memory.

A request path is only ever a key looked up in that list: no request (a NUL byte, a
5,000-character name, ``..``, an invalid encoding) reaches the file system, so a bad path
answers 404 and never an error from ``open`` or ``resolve``. A file added to the web root
is served after a restart.

Each file is named by a hash of its content (its ``ETag``), so a browser that holds it is
answered 304 without the body, and is sent brotli or gzip when it accepts one (compressed
once, on its first request, and kept). ``assets.json`` lists the app's files with their
hashes: the service worker (``web/sw.js``) keeps the app in its cache and fetches again
only the files whose hash changed.
"""

from __future__ import annotations

import gzip
import hashlib
import mimetypes
from dataclasses import dataclass, field
from pathlib import Path

import brotli  # type: ignore[import-untyped]
import orjson
from aiohttp import web

COMPRESSIBLE = frozenset({".html", ".js", ".css", ".json", ".svg", ".txt"})
"""What is worth compressing: text. (A PNG is compressed already.)"""

NOT_THE_APP = ("admin/", "sw.js", "verify.html")
"""Files the service worker does not keep: the operator console, the worker itself, and the
verifier's page (served by its own route, ``http/verifier.py``). Nor the PNG icons: the
system takes them when the app is installed, and the page never shows them."""

REVALIDATE = "no-cache"
"""Every file: kept by the browser, and asked after with its ETag before it is used."""

ENCODINGS = ("br", "gzip")
"""The encodings offered, in the order preferred when a browser accepts several."""

_ENCODED: dict[tuple[str, str], bytes] = {}
"""A file's compressed bodies by (hash, encoding), shared by every server in this process."""


@dataclass(frozen=True)
class Asset:
    """One file: its bytes, its type and the hash that names this version of it."""

    body: bytes
    content_type: str
    digest: str
    compressible: bool = field(default=False)

    @property
    def etag(self) -> str:
        """A weak validator: the same for every encoding of the same content."""
        return f'W/"{self.digest}"'

    def encoded(self, encoding: str) -> bytes | None:
        """The body in ``encoding``, or None when that would not make it smaller."""
        if not self.compressible:
            return None
        key = (self.digest, encoding)
        if key not in _ENCODED:
            if encoding == "br":
                _ENCODED[key] = brotli.compress(self.body, quality=11)
            else:
                _ENCODED[key] = gzip.compress(self.body, compresslevel=9, mtime=0)
        body = _ENCODED[key]
        return body if len(body) < len(self.body) else None


def asset(body: bytes, name: str) -> Asset:
    """The asset for ``body``, typed by its file ``name``."""
    suffix = Path(name).suffix
    kind = mimetypes.guess_type(name)[0] or "application/octet-stream"
    if kind.startswith("text/") or suffix in {".js", ".json", ".svg"}:
        kind = {".js": "text/javascript"}.get(suffix, kind) + "; charset=utf-8"
    digest = hashlib.sha256(body).hexdigest()[:20]
    return Asset(body, kind, digest, suffix in COMPRESSIBLE)


def accepted(header: str) -> list[str]:
    """The encodings an ``Accept-Encoding`` header allows, of those offered, best first."""
    allowed: set[str] = set()
    for part in header.split(","):
        token, _, params = part.strip().partition(";")
        q = params.strip().removeprefix("q=").strip() if params else "1"
        try:
            weight = float(q)
        except ValueError:
            continue
        if weight > 0:
            allowed.add(token.strip().lower())
    return [e for e in ENCODINGS if e in allowed]


def matches(header: str, etag: str) -> bool:
    """Whether an ``If-None-Match`` header names ``etag`` (weak comparison, as for a GET)."""
    bare = etag.removeprefix("W/")
    tags = [t.strip().removeprefix("W/") for t in header.split(",")]
    return "*" in tags or bare in tags


class StaticFiles:
    """GET handler for ``/{path}``: ``/`` and a folder are that folder's ``index.html``."""

    def __init__(self, root: Path) -> None:
        root = root.resolve()
        self.files: dict[str, Asset] = {}
        shell: dict[str, str] = {}
        for path in sorted(root.rglob("*")):
            if not path.is_file():
                continue
            rel = path.relative_to(root).as_posix()
            self.files[rel] = asset(path.read_bytes(), rel)
            if not rel.startswith(NOT_THE_APP) and path.suffix != ".png":
                shell[rel] = self.files[rel].digest
            if path.name == "index.html":
                folder = rel[: -len("index.html")]
                self.files[folder] = self.files[rel]
                self.files[folder.rstrip("/")] = self.files[rel]
        listing = orjson.dumps({"files": shell}, option=orjson.OPT_SORT_KEYS)
        self.files["assets.json"] = asset(listing, "assets.json")

    async def serve(self, request: web.Request) -> web.StreamResponse:
        """Serve the named file (304 when the browser holds this version), or 404."""
        target = self.files.get(request.match_info.get("path", ""))
        if target is None:
            raise web.HTTPNotFound()
        headers = {
            "ETag": target.etag,
            "Cache-Control": REVALIDATE,
            "Vary": "Accept-Encoding",
        }
        if matches(request.headers.get("If-None-Match", ""), target.etag):
            return web.Response(status=304, headers=headers)
        body = target.body
        for encoding in accepted(request.headers.get("Accept-Encoding", "")):
            encoded = target.encoded(encoding)
            if encoded is not None:
                body = encoded
                headers["Content-Encoding"] = encoding
                break
        headers["Content-Type"] = target.content_type
        return web.Response(body=body, headers=headers)
