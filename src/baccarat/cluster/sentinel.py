"""Redis through Sentinel: the ``redis+sentinel://`` URL, and a pool that follows the master.

The URL is the form the Redis-Sentinel-Url package defined (redisvl and Prefect read it too)::

    redis+sentinel://[[USER]:PASSWORD@]HOST[:PORT][,HOST2[:PORT2]...]/SERVICE[/DB]

the sentinels (port 26379 unless given; an IPv6 host in brackets), the name they know the
master by, and its database (0 unless given). The user and password are the master's; the
query's ``sentinel_username`` and ``sentinel_password`` are the sentinels' own, when they
ask for one.

Each new connection asks the sentinels where the master is, and one that meets a master
turned replica (a failover) is dropped and asks again: after a failover the directory's
calls fail as in a Redis outage (retried, answered 503) until the sentinels name the new
master, then go there.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit

from redis.asyncio import BlockingConnectionPool, Redis
from redis.asyncio.sentinel import Sentinel, SentinelConnectionPool

from baccarat.errors import InvalidInput

SCHEME = "redis+sentinel"
PORT = 26379
"""Where a sentinel listens unless its URL says."""
SENTINEL_TIMEOUT = 2.0
"""Seconds a sentinel has to connect and answer before the next one is asked."""
_QUERY = ("sentinel_username", "sentinel_password")


@dataclass(frozen=True)
class SentinelUrl:
    """What a ``redis+sentinel://`` URL names."""

    sentinels: tuple[tuple[str, int], ...]
    service: str
    db: int = 0
    username: str | None = None
    password: str | None = None
    sentinel_username: str | None = None
    sentinel_password: str | None = None


def is_sentinel_url(url: str) -> bool:
    """Whether ``url`` reaches Redis through Sentinel."""
    return url.lower().startswith(f"{SCHEME}://")


def _bad(url: str, why: str) -> InvalidInput:
    return InvalidInput("bad_redis_url", f"{url!r} is not a Redis Sentinel URL: {why}.")


def _sentinel(url: str, spec: str) -> tuple[str, int]:
    """One ``HOST[:PORT]`` of the sentinels (an IPv6 host in brackets)."""
    if spec.startswith("["):
        host, sep, rest = spec[1:].partition("]")
        if not sep or (rest and not rest.startswith(":")):
            raise _bad(url, f"{spec!r} is not [IPv6 address]:port")
        port = rest[1:]
    else:
        host, _, port = spec.partition(":")
    if not host or not (port == "" or port.isdigit()):
        raise _bad(url, f"{spec!r} is not host:port")
    return unquote(host), int(port) if port else PORT


def _path(url: str, path: str) -> tuple[str, int]:
    """The service's name and the database number."""
    parts = [unquote(p) for p in path.strip("/").split("/")] if path.strip("/") else []
    if not parts or len(parts) > 2:
        raise _bad(url, "name the master's service after the sentinels: /SERVICE or /SERVICE/DB")
    if len(parts) == 2 and not parts[1].isdigit():
        raise _bad(url, f"the database {parts[1]!r} is not a number")
    return parts[0], int(parts[1]) if len(parts) == 2 else 0


def parse(url: str) -> SentinelUrl:
    """The sentinels, service, database and credentials ``url`` names."""
    try:
        parts = urlsplit(url)
    except ValueError as exc:
        raise _bad(url, str(exc)) from None
    if parts.scheme.lower() != SCHEME:
        raise _bad(url, f"its scheme is not {SCHEME}://")
    userinfo, _, hosts = parts.netloc.rpartition("@")
    if not hosts:
        raise _bad(url, "it names no sentinel")
    query = dict(parse_qsl(parts.query))
    unknown = sorted(set(query) - set(_QUERY))
    if unknown:
        raise _bad(url, f"unknown options {', '.join(unknown)} (known: {', '.join(_QUERY)})")
    username, _, password = userinfo.partition(":")
    service, db = _path(url, parts.path)
    return SentinelUrl(
        tuple(_sentinel(url, spec) for spec in hosts.split(",")),
        service,
        db,
        unquote(username) or None,
        unquote(password) or None,
        query.get("sentinel_username") or None,
        query.get("sentinel_password") or None,
    )


class BlockingSentinelPool(SentinelConnectionPool, BlockingConnectionPool):
    """A pool of connections to the master the sentinels name, whose callers wait for a free
    connection (as the directory's plain pool does) instead of failing."""


def master_client(url: str, max_connections: int, **options: Any) -> tuple[Redis, Sentinel]:
    """A client of the master that ``url``'s sentinels name, on a pool of ``max_connections``
    (``options`` go to each of its connections), and the sentinels' own clients (closed
    with ``Sentinel.aclose`` after it)."""
    found = parse(url)
    sentinel = Sentinel(
        found.sentinels,
        sentinel_kwargs={
            "socket_connect_timeout": SENTINEL_TIMEOUT,
            "socket_timeout": SENTINEL_TIMEOUT,
            "username": found.sentinel_username,
            "password": found.sentinel_password,
        },
    )
    client = sentinel.master_for(
        found.service,
        connection_pool_class=BlockingSentinelPool,
        db=found.db,
        username=found.username,
        password=found.password,
        max_connections=max_connections,
        **options,
    )
    return client, sentinel
