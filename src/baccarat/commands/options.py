"""Checks of the values commands take on their line: a port, a host to listen on, a URL.

Each answers a bad value in one sentence saying what is wrong and what to give instead;
``port`` is an argparse type (the parser says it in its one line), the others raise
``bad_config``.
"""

from __future__ import annotations

import argparse
import socket
from urllib.parse import urlsplit

from baccarat.errors import InvalidInput

MAX_PORT = 65535


def port(text: str) -> int:
    """A TCP port, 0 to 65535 (0: the system picks a free one)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port: give 0-{MAX_PORT}") from None
    if not 0 <= value <= MAX_PORT:
        raise argparse.ArgumentTypeError(f"{value} is not a port: give 0-{MAX_PORT}")
    return value


def verify_host(flag: str, host: str) -> str:
    """A host this machine can listen on by name or address; ``bad_config`` when the name
    does not resolve."""
    try:
        socket.getaddrinfo(host, None, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except (socket.gaierror, UnicodeError) as exc:
        why = exc.strerror if isinstance(exc, socket.gaierror) else "not a host name"
        raise InvalidInput(
            "bad_config",
            f"{flag} {host!r} is not an address or a name that resolves ({why}): give an "
            "address of this machine, such as 127.0.0.1 or 0.0.0.0.",
        ) from None
    return host


def verify_http_url(flag: str, url: str) -> str:
    """An http:// or https:// URL with a host; ``bad_config`` naming what is missing."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise InvalidInput(
            "bad_config",
            f"{flag} {url!r} is not an http:// or https:// URL: give it whole, such as "
            "http://127.0.0.1:8000.",
        )
    return url
