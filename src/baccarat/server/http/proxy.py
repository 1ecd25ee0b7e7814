"""What the server believes of the reverse proxy in front of it: the client's address, and
whether the browser's connection is HTTPS.

``X-Forwarded-For`` is anyone's to write, so it is read only on a connection from a proxy
named by ``--trusted-proxy``: the client is then the rightmost address in it that is not a
trusted proxy (the one the proxy itself saw; what the client wrote to the left of it is
ignored). A cookie is ``Secure`` when the request reached the server over TLS, when the
public URL (``--public-url``) is https, or when a trusted proxy says the browser's request
was (``X-Forwarded-Proto: https``).
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass

from aiohttp import web


@dataclass(frozen=True, slots=True)
class Proxy:
    """The proxies the server trusts, and whether its public URL is https."""

    trusted: frozenset[str] = frozenset()
    https: bool = False


PROXY = web.AppKey("proxy", Proxy)
"""Set by ``baccarat serve``; an application without it trusts no proxy."""


def verify_address(text: str) -> str:
    """An IP address as ``--trusted-proxy`` takes it, in its canonical form."""
    try:
        return str(ipaddress.ip_address(text.strip()))
    except ValueError:
        raise ValueError(f"{text!r} is not an IP address") from None


def _proxy(request: web.Request) -> Proxy:
    return request.app.get(PROXY) or Proxy()


def _trusted(request: web.Request) -> bool:
    proxy = _proxy(request)
    return bool(proxy.trusted) and (request.remote or "") in proxy.trusted


def client_address(request: web.Request) -> str:
    """The client's address: the connection's, or through a trusted proxy the rightmost
    address of ``X-Forwarded-For`` that is not a trusted proxy."""
    remote = request.remote or "unknown"
    if not _trusted(request):
        return remote
    trusted = _proxy(request).trusted
    hops = [
        hop.strip()
        for line in request.headers.getall("X-Forwarded-For", [])
        for hop in line.split(",")
    ]
    for hop in reversed(hops):
        try:
            address = str(ipaddress.ip_address(hop))
        except ValueError:
            # A hop the proxy did not write is no address to count by: the proxy's own is.
            return remote
        if address not in trusted:
            return address
    return remote


def secure(request: web.Request) -> bool:
    """Whether a cookie set in answer to ``request`` should be ``Secure``."""
    if request.secure or _proxy(request).https:
        return True
    return _trusted(request) and request.headers.get("X-Forwarded-Proto", "") == "https"
