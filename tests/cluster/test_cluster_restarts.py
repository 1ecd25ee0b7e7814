"""Services restarting under a round in play: Redis restarting, PostgreSQL restarting.

- Redis restarts empty: the node whose table nobody else took leases it again, raises the
  table's epoch in the database, and keeps playing: the round in escrow settles, nothing is
  voided, the seats are claimed again.
- PostgreSQL restarts: the table's write is retried with its idempotency key, the table
  holds still meanwhile (no result is announced before the ledger has it), then the round
  settles once the database is back; nothing is voided or lost.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from aiohttp.test_utils import TestServer

from baccarat.client import Client
from baccarat.cluster import RedisDirectory, SeatClaim
from baccarat.cluster.keeper import Keeper
from baccarat.server import Server, create_app
from baccarat.server.config import parse_rooms
from baccarat.store import Store, open_store
from services import OwnPostgres, OwnRedis, own_postgres, own_redis

LEASE_TTL = 3.0
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


async def _until(predicate: Any, what: str, limit: float = 60.0) -> None:
    """Poll until truthy (a bound on a hang, not a speed test)."""
    end = time.monotonic() + limit
    while time.monotonic() < end:
        if predicate():
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"gave up waiting for {what}")


@contextlib.asynccontextmanager
async def _node(
    store: Store, rooms: dict[str, Any] = ROOMS, **kw: Any
) -> AsyncIterator[tuple[str, Server]]:
    server = Server(store, parse_rooms(rooms), speed=10.0, shutdown_grace=0.5, **kw)
    ts = TestServer(create_app(server), host="127.0.0.1", port=0)
    await ts.start_server()
    try:
        yield str(ts.make_url("")).rstrip("/"), server
    finally:
        await ts.close()


async def _betting(store: Store, base: str) -> tuple[Client, Client]:
    """A dealer and a bettor at t1, the bettor's stake of 500 placed while betting is open."""
    clients = []
    for name, coins in (("dealer", 1_000_000), ("alice", 100_000)):
        user = store.create_user(name, "password1", level=50, coins=coins)
        clients.append(await Client.connect(base, store.create_session(user.user_id), record=True))
    dealer, bettor = clients
    await dealer.sit("t1", 0)
    await bettor.sit("t1", 1)
    await bettor.wait_for(_event("betting_opened"))
    await bettor.bet("banker", 5)
    return dealer, bettor


async def _mid_squeeze(store: Store, base: str) -> tuple[Client, Client, str, str]:
    """A dealer and a bettor at t1, the bettor's stake in escrow, its card face down."""
    dealer, bettor = await _betting(store, base)
    started = await bettor.wait_for(_event("squeeze_started"))
    return dealer, bettor, started["data"]["round_id"], started["data"]["hand"]


def _event(kind: str) -> Any:
    return lambda m: m.get("type") == "event" and m.get("event") == kind


def _events(client: Client, kind: str, round_id: str) -> list[dict[str, Any]]:
    return [
        f
        for f in client.frames
        if f.get("type") == "event"
        and f.get("event") == kind
        and f["data"].get("round_id") == round_id
    ]


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


async def _redis_restart_keeps_the_table(tmp_path: Path, redis: OwnRedis) -> None:
    store = open_store(f"sqlite:///{tmp_path / 'shared.db'}")
    directory = RedisDirectory.from_url(redis.url, f"test:{uuid.uuid4().hex}:")
    try:
        async with _node(store, directory=directory, node_id="A", lease_ttl=LEASE_TTL) as (
            base,
            server,
        ):
            dealer, bettor, round_id, hand = await _mid_squeeze(store, base)
            driver = server.drivers["t1"]
            epoch = store.epoch_of("t1")

            redis.restart()
            await _until(lambda: store.epoch_of("t1") == epoch + 1, "the lease taken again")
            assert server.drivers["t1"] is driver and driver.running
            await _until(
                lambda: server.node is not None and "t1" in server.node.keeper.held, "lease"
            )
            claim = await directory.seat_of(bettor.user_id)
            for _ in range(200):
                if claim is not None:
                    break
                await asyncio.sleep(0.05)
                claim = await directory.seat_of(bettor.user_id)
            assert claim == SeatClaim("t1", 1)

            settled = await _open_all(bettor, round_id, hand)
            assert settled["data"]["round_id"] == round_id
            assert _events(bettor, "round_voided", round_id) == []
            assert store.get_round(round_id).status == "settled"
            report = store.audit()
            assert report.ok, report.problems
            assert report.voided == 0
            await dealer.close()
            await bettor.close()
    finally:
        await directory.close()
        store.close()


async def test_a_node_keeps_its_table_through_a_redis_restart_and_voids_nothing(
    tmp_path: Path,
) -> None:
    with own_redis() as redis:
        await _redis_restart_keeps_the_table(tmp_path, redis)


async def _postgres_restart_pauses_the_table(pg: OwnPostgres) -> None:
    store = await asyncio.to_thread(open_store, pg.url)
    try:
        async with _node(store) as (base, server):
            dealer, bettor, round_id, hand = await _mid_squeeze(store, base)
            start = {c.user_id: store.balance(c.user_id) for c in (dealer, bettor)}
            ledger = server.drivers["t1"].ledger

            await asyncio.to_thread(pg.stop)
            opened = asyncio.create_task(_open_all(bettor, round_id, hand))
            await _until(lambda: ledger.paused, "the table to wait for the database")
            # The ledger has not accepted the result, so no screen has seen it.
            assert _events(bettor, "round_settled", round_id) == []
            assert not opened.done()

            await asyncio.to_thread(pg.start)
            settled = await opened
            assert settled["data"]["round_id"] == round_id
            assert not ledger.paused
            assert _events(bettor, "round_voided", round_id) == []
            assert store.get_round(round_id).status == "settled"
            deltas = {int(u): d for u, d in settled["data"]["settlement"]["deltas"].items()}
            assert {u: store.balance(u) for u in start} == {
                u: coins + 500 * (u == bettor.user_id) + deltas.get(u, 0)
                for u, coins in start.items()
            }
            report = store.audit()
            assert report.ok, report.problems
            assert report.voided == 0
            assert store.total_coins()["total"] == 0
            await dealer.close()
            await bettor.close()
    finally:
        store.close()


async def test_a_table_pauses_through_a_postgresql_restart_and_loses_nothing() -> None:
    with own_postgres() as pg:
        await _postgres_restart_pauses_the_table(pg)


async def _postgres_outage_keeps_the_squeeze_time(pg: OwnPostgres) -> None:
    # A squeeze of 1 s at this speed: the outage below outlasts it.
    rooms = {**ROOMS, "timers": {**ROOMS["timers"], "squeeze": 10.0}}
    store = await asyncio.to_thread(open_store, pg.url)
    try:
        async with _node(store, rooms) as (base, server):
            dealer, bettor = await _betting(store, base)
            ledger = server.drivers["t1"].ledger
            # The stakes go into escrow when betting closes: that write waits for the database.
            await asyncio.to_thread(pg.stop)
            await _until(lambda: ledger.paused, "the table to wait for the database")
            await asyncio.sleep(1.5)
            await asyncio.to_thread(pg.start)
            started = await bettor.wait_for(_event("squeeze_started"))
            # The squeeze starts with its whole time: the table's time stood still meanwhile.
            assert started["data"]["remaining_ms"] >= 900, started
            settled = await bettor.wait_for(_event("round_settled"))
            assert settled["data"]["round_id"] == started["data"]["round_id"]
            report = store.audit()
            assert report.ok and report.voided == 0, report
            await dealer.close()
            await bettor.close()
    finally:
        store.close()


async def test_a_database_outage_does_not_use_up_the_squeeze() -> None:
    with own_postgres() as pg:
        await _postgres_outage_keeps_the_squeeze_time(pg)


async def test_after_redis_restarts_empty_each_table_goes_back_to_its_holder() -> None:
    started: dict[str, list[str]] = {"A": [], "B": []}

    def keeper(node: str, directory: RedisDirectory) -> Keeper:
        async def gained(table_id: str, token: int) -> None:
            started[node].append(table_id)

        async def lost(table_id: str) -> None:
            started[node].remove(table_id)

        async def regained(table_id: str) -> bool:
            return True  # the database agrees: nobody took the table meanwhile

        return Keeper(
            directory,
            node,
            f"http://{node}:8000",
            ["t1"],
            on_gained=gained,
            on_lost=lost,
            on_regained=regained,
            ttl=LEASE_TTL,
        )

    with own_redis() as redis:
        prefix = f"test:{uuid.uuid4().hex}:"
        directories = [RedisDirectory.from_url(redis.url, prefix) for _ in "AB"]
        a, b = keeper("A", directories[0]), keeper("B", directories[1])
        try:
            await a.tick()
            await b.tick()
            assert (a.held.keys(), b.held.keys()) == ({"t1"}, set())
            redis.restart()
            # B ticks first: the directory forgot B too, so B leaves t1 to its holder.
            await b.tick()
            assert b.held == {}
            await a.tick()
            assert a.held.keys() == {"t1"}
            await b.tick()
            assert b.held == {} and started == {"A": ["t1"], "B": []}
        finally:
            for d in directories:
                await d.close()
