"""The directory of many nodes, kept in Redis.

Keys (all under one prefix, so several systems or tests share a Redis without meeting):
``node:ID`` (hash: url; expires), ``nodes`` (set of ids), ``lease:TABLE`` (hash: node, token,
ttl; expires), ``fence:TABLE`` (the table's last token; never expires), ``seat:USER`` (hash:
table, seat, node; expires), ``line:TABLE`` (hash: node, json, pages; expires), ``lines`` (set
of table ids), ``page:ROOM:FILTER`` (sorted sets of table ids by rank, one per room and one
for every room (ROOM empty), each unfiltered, by good road and ``any``: the lobby's pages), and the
pub/sub channel ``lobby``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from typing import Any

from redis.asyncio import BlockingConnectionPool, Redis
from redis.asyncio.connection import parse_url
from redis.asyncio.retry import Retry
from redis.asyncio.sentinel import Sentinel
from redis.backoff import ExponentialBackoff
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from baccarat.cluster import scripts
from baccarat.cluster.directory import LobbyChange, LobbyPage, Owner, SeatClaim, good_road_patterns
from baccarat.cluster.sentinel import is_sentinel_url, master_client
from baccarat.cluster.sentinel import parse as parse_sentinel_url
from baccarat.errors import InvalidInput
from baccarat.protocol import codec
from baccarat.protocol.lobby import LineJson

DEFAULT_PREFIX = "baccarat:"

PARSED_LINES = 8192
"""Parsed lines kept for pages read again (about 10 MB at most)."""

MAX_CONNECTIONS = 32
"""Connections one node opens to Redis at most; more calls at once wait for a free one."""


def check_url(url: str) -> None:
    """Refuse a Redis URL the directory cannot use (``bad_redis_url``) before anything
    starts."""
    if is_sentinel_url(url):
        parse_sentinel_url(url)
        return
    try:
        parse_url(url)
    except ValueError as exc:
        raise InvalidInput("bad_redis_url", f"{url!r} is not a Redis URL: {exc}") from None


def _ms(seconds: float) -> int:
    # Redis counts in whole milliseconds; a positive time never rounds down to "no expiry".
    return max(1, round(seconds * 1000))


def _text(value: str | bytes) -> str:
    return value.decode() if isinstance(value, bytes) else value


class RedisDirectory:
    """``Directory`` shared by every node that uses the same Redis and ``prefix``."""

    expires = True

    def __init__(self, client: Redis, prefix: str = DEFAULT_PREFIX) -> None:
        self.client = client
        self.prefix = prefix
        self.channel = f"{prefix}lobby"
        self._urls: dict[str, str] = {}
        self._parsed: dict[str, LineJson] = {}
        """Lines read lately, by their JSON text."""
        self._sentinels: Sentinel | None = None
        """The sentinels' clients, when the master is found through them."""
        reg = client.register_script
        self._acquire = reg(scripts.ACQUIRE)
        self._renew = reg(scripts.RENEW)
        self._release = reg(scripts.RELEASE)
        self._claim_seat = reg(scripts.CLAIM_SEAT)
        self._release_seat = reg(scripts.RELEASE_SEAT)
        self._renew_seats = reg(scripts.RENEW_SEATS)
        self._publish = reg(scripts.PUBLISH)
        self._withdraw = reg(scripts.WITHDRAW)
        self._live = reg(scripts.LIVE_MEMBERS)
        self._page = reg(scripts.PAGE)

    @classmethod
    def from_url(
        cls, url: str, prefix: str = DEFAULT_PREFIX, max_connections: int = MAX_CONNECTIONS
    ) -> RedisDirectory:
        """A directory on its own connection pool to ``url``: ``redis://HOST:PORT/DB``, or
        ``redis+sentinel://HOST:PORT[,HOST2:PORT2]/SERVICE[/DB]`` for the master that
        Redis Sentinel names (``baccarat.cluster.sentinel``)."""
        # A blocking pool: a burst of calls (many users sitting down at once) waits for a
        # connection instead of failing with "too many connections".
        # One quick retry on a broken connection: after Redis restarts, every pooled
        # connection is dead, and a call should not fail just for picking one of them.
        options: dict[str, Any] = {
            "decode_responses": True,
            "retry": Retry(ExponentialBackoff(cap=0.5, base=0.05), 2),
            "retry_on_error": [RedisConnectionError, RedisTimeoutError],
        }
        if is_sentinel_url(url):
            client, sentinels = master_client(url, max_connections, **options)
            directory = cls(client, prefix)
            directory._sentinels = sentinels
            return directory
        pool = BlockingConnectionPool.from_url(url, max_connections=max_connections, **options)
        return cls(Redis.from_pool(pool), prefix)

    def _key(self, kind: str, name: str | int) -> str:
        return f"{self.prefix}{kind}:{name}"

    async def close(self) -> None:
        """Close the connection pool (and the sentinels' connections)."""
        await self.client.aclose()
        if self._sentinels is not None:
            await self._sentinels.aclose()

    # -- nodes ------------------------------------------------------------------------

    async def register(self, node_id: str, public_url: str, ttl: float) -> bool:
        """Announce (or keep announcing) a live node; whether it was known still."""
        self._urls[node_id] = public_url
        key = self._key("node", node_id)
        async with self.client.pipeline(transaction=True) as pipe:
            pipe.exists(key)
            pipe.hset(key, "url", public_url)
            pipe.pexpire(key, _ms(ttl))
            pipe.sadd(f"{self.prefix}nodes", node_id)
            known, *_ = await pipe.execute()
        return bool(known)

    async def unregister(self, node_id: str) -> None:
        """Say the node is leaving."""
        self._urls.pop(node_id, None)
        async with self.client.pipeline(transaction=True) as pipe:
            pipe.delete(self._key("node", node_id))
            pipe.srem(f"{self.prefix}nodes", node_id)
            await pipe.execute()

    async def leave(self, node_id: str) -> None:
        """Count the node out of the live nodes; its address stays until it runs out."""
        await self.client.srem(f"{self.prefix}nodes", node_id)

    async def nodes(self) -> dict[str, str]:
        """Every live node's id mapped to its public URL."""
        flat = await self._live(keys=[f"{self.prefix}nodes"], args=[self._key("node", ""), "url"])
        return {_text(flat[i]): _text(flat[i + 1]) for i in range(0, len(flat), 2)}

    async def _url(self, node_id: str) -> str:
        known = self._urls.get(node_id)
        if known is not None:
            return known
        url = await self.client.hget(self._key("node", node_id), "url")
        return "" if url is None else _text(url)

    # -- table leases -----------------------------------------------------------------

    async def holders(self, table_ids: Sequence[str]) -> dict[str, str]:
        """The node that leases each of ``table_ids`` now (one round trip)."""
        async with self.client.pipeline(transaction=False) as pipe:
            for table_id in table_ids:
                pipe.hget(self._key("lease", table_id), "node")
            found = await pipe.execute()
        return {t: _text(n) for t, n in zip(table_ids, found, strict=True) if n is not None}

    async def acquire(self, table_id: str, node_id: str, ttl: float) -> int | None:
        """Lease a table; the lease token, or None if another node holds it."""
        token = await self._acquire(
            keys=[self._key("lease", table_id), self._key("fence", table_id)],
            args=[node_id, _ms(ttl)],
        )
        return None if token is None else int(token)

    async def renew(self, table_id: str, node_id: str, token: int) -> bool:
        """Extend the lease if ``node_id`` holds it with ``token``."""
        done = await self._renew(keys=[self._key("lease", table_id)], args=[node_id, token])
        return bool(done)

    async def release(self, table_id: str, node_id: str, token: int) -> bool:
        """Give the lease up if it is held with ``token``."""
        done = await self._release(keys=[self._key("lease", table_id)], args=[node_id, token])
        return bool(done)

    async def owner(self, table_id: str) -> Owner | None:
        """Who holds the table now, if anyone."""
        node = await self.client.hget(self._key("lease", table_id), "node")
        if node is None:
            return None
        node_id = _text(node)
        url = await self.client.hget(self._key("node", node_id), "url")
        return Owner(node_id, "" if url is None else _text(url))

    # -- seats ------------------------------------------------------------------------

    async def claim_seat(
        self, user_id: int, table_id: str, seat: int, node_id: str, ttl: float
    ) -> bool:
        """Claim the user's one seat; False if the user sits at another table."""
        done = await self._claim_seat(
            keys=[self._key("seat", user_id)], args=[table_id, seat, node_id, _ms(ttl)]
        )
        return bool(done)

    async def release_seat(self, user_id: int, table_id: str) -> bool:
        """Drop the user's claim if it is at ``table_id``."""
        done = await self._release_seat(keys=[self._key("seat", user_id)], args=[table_id])
        return bool(done)

    async def seat_of(self, user_id: int) -> SeatClaim | None:
        """Where the user holds a seat, if anywhere."""
        found = await self.client.hmget(self._key("seat", user_id), ["table", "seat"])
        if found[0] is None or found[1] is None:
            return None
        return SeatClaim(_text(found[0]), int(found[1]))

    async def renew_seats(self, node_id: str, seats: Mapping[int, str], ttl: float) -> set[int]:
        """Extend this node's claims; the users whose claim was gone."""
        if not seats:
            return set()
        users = list(seats)
        lost = await self._renew_seats(
            keys=[self._key("seat", u) for u in users],
            args=[node_id, _ms(ttl), *(seats[u] for u in users)],
        )
        return {users[int(i) - 1] for i in lost}

    # -- lobby ------------------------------------------------------------------------

    async def publish(self, node_id: str, summary: LineJson, ttl: float, *, rank: int = 0) -> bool:
        """Show a table's lobby line everywhere, if ``node_id`` leases the table."""
        table_id = str(summary["table_id"])
        line = {**summary, "node_id": node_id, "url": await self._url(node_id)}
        done = await self._publish(
            keys=[self._key("lease", table_id), self._key("line", table_id), self._lines],
            args=[
                node_id,
                _ms(ttl),
                table_id,
                codec.dumps(line),
                rank,
                self._key("page", ""),
                codec.dumps(page_indexes(summary)),
            ],
        )
        return bool(done)

    async def withdraw(self, table_id: str, node_id: str) -> bool:
        """Take a table's line out of the lobby if ``node_id`` published it."""
        message = codec.dumps({"table_id": table_id, "summary": None})
        done = await self._withdraw(
            keys=[self._key("line", table_id), self._lines],
            args=[node_id, table_id, self.channel, message, self._key("page", "")],
        )
        return bool(done)

    async def page(self, room: str | None, road: str | None, start: int, count: int) -> LobbyPage:
        """A page of the view's lines: one script reads the page's index and its lines."""
        name = _page_name(room, road)
        found = await self._page(
            keys=[self._key("page", name)], args=[self._key("line", ""), start, count, name]
        )
        return LobbyPage(int(found[0]), [self._parse(text) for text in found[1:]])

    def _parse(self, text: str) -> LineJson:
        # Most lines on a page read once a second have not changed since the last read: the
        # same text gives back the same (unchanged, never mutated) line without parsing it.
        line = self._parsed.get(text)
        if line is None:
            if len(self._parsed) >= PARSED_LINES:
                self._parsed.clear()
            line = self._parsed[text] = _line(codec.loads_own(text))
        return line

    @property
    def _lines(self) -> str:
        return f"{self.prefix}lines"

    async def all_summaries(self) -> dict[str, LineJson]:
        """Every table's current lobby line."""
        flat = await self._live(keys=[self._lines], args=[self._key("line", ""), "json"])
        return {_text(flat[i]): _line(codec.loads_own(flat[i + 1])) for i in range(0, len(flat), 2)}

    async def announce(self, message: LineJson) -> None:
        """Tell every node following the lobby an operator's ``message``."""
        await self.client.publish(self.channel, codec.dumps({"table_id": "", "operator": message}))

    @asynccontextmanager
    async def lobby_changes(self) -> AsyncIterator[AsyncIterator[LobbyChange]]:
        """Follow lobby changes while the ``async with`` lasts (its own connection)."""
        pubsub = self.client.pubsub()
        try:
            await pubsub.subscribe(self.channel)
            # Wait for Redis to confirm, so nothing published from here on is missed.
            while True:
                msg = await pubsub.get_message(timeout=None)
                if msg is not None and msg["type"] == "subscribe":
                    break
            yield _changes(pubsub.listen())
        finally:
            # (typed in redis 8.2, untyped before: a typed name serves both)
            close: Callable[[], Awaitable[None]] = pubsub.aclose
            await close()


async def _changes(messages: AsyncIterator[dict[str, Any]]) -> AsyncIterator[LobbyChange]:
    async for msg in messages:
        if msg["type"] != "message":
            continue
        body = codec.loads(msg["data"])
        if isinstance(body, dict) and "operator" in body:
            yield LobbyChange("", None, _line(body["operator"]))
        elif isinstance(body, dict):
            summary = body.get("summary")
            yield LobbyChange(str(body["table_id"]), None if summary is None else _line(summary))


def _page_name(room: str | None, road: str | None) -> str:
    # Every room is the empty room (a room's id is never empty); good roads have no colon.
    return f"{room or ''}:{road or ''}"


def page_indexes(summary: LineJson) -> list[str]:
    """The indexes a table's line belongs to: its room's and every room's, unfiltered, by
    each good road it shows, and ``any`` when it shows one."""
    roads = good_road_patterns(summary)
    filters = ["", *roads, "any"] if roads else [""]
    room = str(summary.get("room_id", ""))
    return [_page_name(r, f) for r in (room, None) for f in filters]


def _line(value: object) -> LineJson:
    # Lines come from other nodes of the same system, which wrote them with ``codec``.
    if not isinstance(value, dict):
        raise ValueError("a lobby line is a JSON object")
    return value
