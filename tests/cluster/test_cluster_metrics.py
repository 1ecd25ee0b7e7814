"""What a node reports to its operator about its standing and its database, read at /metrics.

- its heartbeat: when it last wrote it to Redis, and how many nodes' heartbeats it saw;
- tables stopped by a lost lease, by reason: ``refused`` (another node holds the lease) and
  ``expired`` (Redis did not answer for a ttl), and the round in escrow it voided then;
- ledger writes retried while the database does not answer (PostgreSQL behind a relay of
  the test's own, cut and mended).

Each test drives the real event: a real Redis (``BACCARAT_TEST_REDIS``) or PostgreSQL
(``BACCARAT_TEST_PG``), real sockets on 127.0.0.1, a real server in this process.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from aiohttp.test_utils import TestServer
from redis.asyncio import Redis
from redis.exceptions import ConnectionError as RedisConnectionError
from tcprelay import Relay

from baccarat.client import Client
from baccarat.cluster import RedisDirectory
from baccarat.server import Server, create_app
from baccarat.server.config import parse_rooms
from baccarat.store import Store, open_store
from pgschema import private_schema
from scrape import Scraped, scrape

REDIS_URL = os.environ.get("BACCARAT_TEST_REDIS", "redis://127.0.0.1:6379/0")
LEASE_TTL = 2.0
"""The expiring lease: a loaded machine's slow start must not let it lapse before it is cut."""
REFUSED_TTL = 10.0
"""The lease another node takes over: long enough that a loaded machine's late renewal cannot
let it run out first (the test takes it; it never waits for it to expire)."""
HEARTBEAT_TTL = 3.0
"""The heartbeat test's lease: long enough that a loaded machine's slow start does not let the
node's own heartbeat lapse before the first scrape."""
ROOMS: dict[str, Any] = {
    "server": {"start_coins": 100_000},
    "rooms": [
        {
            "id": "standard",
            "name": "Standard",
            "chip_unit": 100,
            "bettor_floor": 1000,
            "dealer_floor": 35000,
            "tables": ["t1"],
        }
    ],
    # A squeeze that holds still until the test opens the card.
    "timers": {"betting": 8.0, "squeeze": 600.0, "result": 2.0, "reconnect_grace": 60.0},
}


async def _redis_or_skip() -> None:
    client = Redis.from_url(REDIS_URL, socket_connect_timeout=1.0)
    try:
        await client.ping()
    except (RedisConnectionError, OSError):
        pytest.skip(f"Redis is not reachable at {REDIS_URL} (set BACCARAT_TEST_REDIS)")
    finally:
        await client.aclose()


@contextlib.asynccontextmanager
async def _prefix() -> AsyncIterator[str]:
    """A fresh key prefix in the test Redis, its keys removed afterwards."""
    await _redis_or_skip()
    prefix = f"test:{uuid.uuid4().hex}:"
    try:
        yield prefix
    finally:
        cleaner = Redis.from_url(REDIS_URL)
        keys = [k async for k in cleaner.scan_iter(match=f"{prefix}*")]
        if keys:
            await cleaner.delete(*keys)
        await cleaner.aclose()


@contextlib.asynccontextmanager
async def _node(store: Store, **kw: Any) -> AsyncIterator[tuple[str, Server]]:
    server = Server(store, parse_rooms(ROOMS), speed=10.0, shutdown_grace=0.5, **kw)
    ts = TestServer(create_app(server), host="127.0.0.1", port=0)
    await ts.start_server()
    try:
        yield str(ts.make_url("")).rstrip("/"), server
    finally:
        await ts.close()


async def _until_scraped(server: Server, check: Any, what: str, limit: float = 30.0) -> Scraped:
    """Scrape until ``check(scraped)`` holds (a bound on a hang, not a speed test)."""
    end = time.monotonic() + limit
    while time.monotonic() < end:
        scraped = await scrape(server)
        if check(scraped):
            return scraped
        await asyncio.sleep(0.1)
    raise AssertionError(f"gave up waiting for {what}: {scraped.text}")


def _event(kind: str) -> Any:
    return lambda m: m.get("type") == "event" and m.get("event") == kind


async def _mid_squeeze(store: Store, base: str) -> tuple[Client, Client, str, str]:
    """A dealer and a bettor at t1, the bettor's stake in escrow, its card face down."""
    clients = []
    for name, coins in (("dealer", 1_000_000), ("alice", 100_000)):
        user = store.create_user(name, "password1", level=50, coins=coins)
        clients.append(await Client.connect(base, store.create_session(user.user_id), record=True))
    dealer, bettor = clients
    await dealer.sit("t1", 0)
    await bettor.sit("t1", 1)
    await bettor.wait_for(_event("betting_opened"))
    await bettor.bet("banker", 5)
    started = await bettor.wait_for(_event("squeeze_started"))
    return dealer, bettor, started["data"]["round_id"], started["data"]["hand"]


async def test_a_node_reports_its_heartbeat_and_the_nodes_it_sees(tmp_path: Path) -> None:
    store = open_store(f"sqlite:///{tmp_path / 'a.db'}")
    async with _prefix() as prefix:
        directory = RedisDirectory.from_url(REDIS_URL, prefix)
        other = RedisDirectory.from_url(REDIS_URL, prefix)
        try:
            async with _node(
                store,
                directory=directory,
                node_id="A",
                public_url="http://a",
                lease_ttl=HEARTBEAT_TTL,
            ) as (_, server):
                first = await scrape(server)
                assert first.value("baccarat_nodes_alive") == 1
                beat = first.value("baccarat_node_heartbeat_timestamp_seconds")
                assert beat is not None and abs(beat - time.time()) < 5

                # Another node announces itself once: A sees it, then sees its heartbeat lapse.
                await other.register("B", "http://b", HEARTBEAT_TTL)
                await _until_scraped(
                    server, lambda s: s.value("baccarat_nodes_alive") == 2, "B's heartbeat"
                )
                later = await _until_scraped(
                    server, lambda s: s.value("baccarat_nodes_alive") == 1, "B's heartbeat gone"
                )
                # A kept writing its own heartbeat all along.
                assert (later.value("baccarat_node_heartbeat_timestamp_seconds") or 0) > beat
        finally:
            await other.close()
            await directory.close()
            store.close()


async def test_a_table_whose_lease_another_node_holds_stops_and_is_counted(
    tmp_path: Path,
) -> None:
    store = open_store(f"sqlite:///{tmp_path / 'a.db'}")
    async with _prefix() as prefix:
        directory = RedisDirectory.from_url(REDIS_URL, prefix)
        other = RedisDirectory.from_url(REDIS_URL, prefix)
        try:
            async with _node(
                store,
                directory=directory,
                node_id="A",
                public_url="http://a",
                lease_ttl=REFUSED_TTL,
            ) as (base, server):
                dealer, bettor, round_id, _ = await _mid_squeeze(store, base)
                try:
                    # Node B gets the lease in between two of A's renewals.
                    token = server.node.keeper.held["t1"]
                    assert await other.release("t1", "A", token)
                    assert await other.acquire("t1", "B", 30.0) is not None

                    # The round in escrow is voided as the table stops here (counted once its
                    # void is written, a moment after the lost lease).
                    scraped = await _until_scraped(
                        server,
                        lambda s: (
                            s.value("baccarat_table_leases_lost_total", reason="refused") == 1
                            and s.value("baccarat_rounds_voided_total", reason="shutdown") == 1
                        ),
                        "the lost lease and the voided round counted",
                    )
                    assert scraped.value("baccarat_table_leases_lost_total", reason="expired") == 0
                    assert scraped.value("baccarat_tables_running") == 0
                    assert store.get_round(round_id).status == "voided"
                finally:
                    await dealer.close()
                    await bettor.close()
        finally:
            await other.close()
            await directory.close()
            store.close()


async def test_a_node_cut_off_from_redis_plays_on_until_its_table_is_taken_over(
    tmp_path: Path,
) -> None:
    store = open_store(f"sqlite:///{tmp_path / 'a.db'}")
    async with _prefix() as prefix:
        relay = Relay(int(REDIS_URL.rsplit(":", 1)[1].split("/")[0]))
        url = f"redis://127.0.0.1:{relay.port}/0"
        directory = RedisDirectory.from_url(url, prefix)
        try:
            async with _node(
                store, directory=directory, node_id="A", public_url="http://a", lease_ttl=LEASE_TTL
            ) as (_, server):
                before = await scrape(server)
                assert before.value("baccarat_tables_running") == 1
                assert before.value("baccarat_dependency_up", part="directory") == 1
                relay.cut()
                # The lease runs out with Redis away, but the database still gives the
                # table to this node: it plays on, and the node says it is degraded.
                scraped = await _until_scraped(
                    server,
                    lambda s: (
                        (beat := s.value("baccarat_node_heartbeat_timestamp_seconds")) is not None
                        and time.time() - beat >= 2 * LEASE_TTL
                        and s.value("baccarat_dependency_up", part="directory") == 0
                    ),
                    "the lease to run out with Redis away",
                )
                assert scraped.value("baccarat_tables_running") == 1
                assert scraped.value("baccarat_table_leases_lost_total", reason="expired") == 0
                assert server.drivers["t1"].running
                # Another node takes the table over in the database (its epoch raised):
                # the node cut off from Redis stops it at its next look.
                await asyncio.to_thread(store.take_table, "t1", "B")
                scraped = await _until_scraped(
                    server,
                    lambda s: s.value("baccarat_table_leases_lost_total", reason="expired") == 1,
                    "the table taken over to stop here",
                )
                assert scraped.value("baccarat_tables_running") == 0
        finally:
            await directory.close()
            relay.close()
            store.close()


@pytest.mark.postgres
async def test_ledger_writes_retried_while_the_database_does_not_answer_are_counted() -> None:
    with private_schema("metrics") as direct:
        # The node reaches PostgreSQL through a relay the test can cut.
        host_port = direct.split("@", 1)[1].split("/", 1)[0]
        relay = Relay(int(host_port.rsplit(":", 1)[1]) if ":" in host_port else 5432)
        url = direct.replace(f"@{host_port}/", f"@127.0.0.1:{relay.port}/", 1)
        store = await asyncio.to_thread(open_store, url)
        try:
            async with _node(store) as (base, server):
                dealer, bettor, round_id, hand = await _mid_squeeze(store, base)
                try:
                    ledger = server.drivers["t1"].ledger
                    assert (await scrape(server)).value("baccarat_ledger_retries_total") == 0

                    relay.cut()
                    opened = asyncio.create_task(_open_all(bettor, round_id, hand))
                    scraped = await _until_scraped(
                        server,
                        lambda s: (s.value("baccarat_ledger_retries_total") or 0) >= 1,
                        "a retried write counted",
                    )
                    assert ledger.paused
                    relay.mend()
                    settled = await opened
                    assert settled["data"]["round_id"] == round_id
                    after = await scrape(server)
                    retried = after.value("baccarat_ledger_retries_total") or 0
                    assert retried >= (scraped.value("baccarat_ledger_retries_total") or 0)
                    assert store.get_round(round_id).status == "settled"
                finally:
                    await dealer.close()
                    await bettor.close()
        finally:
            store.close()
            relay.close()


async def _open_all(bettor: Client, round_id: str, hand: str) -> dict[str, Any]:
    """Open the face-down cards the bettor controls until the round settles."""
    await bettor.open(hand)
    while True:
        msg = await bettor.wait_for(
            lambda m: (
                m.get("type") == "event" and m.get("event") in ("squeeze_started", "round_settled")
            )
        )
        if msg["event"] == "round_settled" and msg["data"]["round_id"] == round_id:
            return msg
        await bettor.open(msg["data"]["hand"])
