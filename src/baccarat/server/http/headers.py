"""Security headers on every HTTP response but a socket's 101, fitted to the browser client.

The client loads only its own scripts, styles and images (plus ``data:`` images, its icon),
opens a WebSocket back to the host it came from, and sets styles only through the CSSOM
(``element.style``), which a Content-Security-Policy without ``'unsafe-inline'`` allows.

No page may be framed (``frame-ancestors 'none'``, ``X-Frame-Options: DENY``), but the
game's pages by the origins a platform file lists (``frame_origins``): their policy names
exactly those origins and they carry no ``X-Frame-Options`` (which cannot name one). The
console is never framed.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from aiohttp import web

_HOST = re.compile(r"[A-Za-z0-9.\-]+(:[0-9]+)?|\[[0-9A-Fa-f:.]+\](:[0-9]+)?")
"""A host as it may appear in a CSP source: anything else in a Host header is dropped."""

BASE_POLICY = (
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "font-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
)
FRAME_ANCESTORS: web.AppKey[tuple[str, ...]] = web.AppKey("frame_ancestors")
"""The origins that may frame the game's pages (a platform file's ``frame_origins``)."""
NEVER_FRAMED = ("/admin", "/api/admin")
"""Paths no origin may frame: the operator console."""

FIXED = {
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    "X-Frame-Options": "DENY",
}


def content_security_policy(host: str | None, framed_by: Sequence[str] = ()) -> str:
    """The policy for a page served to ``host`` (the request's Host header) that the
    origins ``framed_by`` (and no other) may frame."""
    connect = "connect-src 'self'"
    # Older browsers do not count ws:/wss: of the page's own host as 'self'.
    if host and _HOST.fullmatch(host):
        connect += f" ws://{host} wss://{host}"
    ancestors = "frame-ancestors " + (" ".join(framed_by) or "'none'")
    return "; ".join((*BASE_POLICY[:4], connect, *BASE_POLICY[4:], ancestors))


async def add_security_headers(request: web.Request, response: web.StreamResponse) -> None:
    """``on_response_prepare``: set the headers on any response, errors included, but a
    socket's 101 Switching Protocols: it carries no document for them to govern, and a
    socket's response (with its headers) lives as long as the socket."""
    if response.status == 101:
        return
    framed_by: tuple[str, ...] = request.config_dict.get(FRAME_ANCESTORS, ())
    if request.path.startswith(NEVER_FRAMED):
        framed_by = ()
    for name, value in FIXED.items():
        if not (framed_by and name == "X-Frame-Options"):
            response.headers.setdefault(name, value)
    response.headers.setdefault(
        "Content-Security-Policy",
        content_security_policy(request.headers.get("Host"), framed_by),
    )
