"""An operator's grant at one node for a user whose table another node runs is decided at
that node: coins the dealer's book needs mid-round are not taken back, whether granted or
approved (the request is passed on, and that table refuses it), and a grant it can take
reaches the table at once. Two servers on one directory (in process, and over Redis) and
one database."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import aiohttp
from console_nodes import NodeFactory, console_login, operator, running_nodes
from test_cluster_server import _rooms

from baccarat.client import Client
from baccarat.server.config import parse_rooms
from baccarat.store import Store, open_store

ROOMS = parse_rooms(
    {
        **_rooms(["t1"]),
        "server": {"start_coins": 100_000, "grant_approve_above": 96_000},
        "timers": {"betting": 30.0, "shuffle": 0.1},
    }
)
"""One table, whose betting lasts while the operators act, and a shoe shuffled at once;
a grant of more than 96,000 coins waits for a second operator."""


async def test_a_grant_at_the_other_node_is_decided_by_the_table_that_seats_the_user(
    tmp_path: Path, nodes: NodeFactory
) -> None:
    store = open_store(f"sqlite:///{tmp_path / 'shared.db'}")
    secrets = {name: operator(store, name) for name in ("boss", "second")}
    dealer = store.create_user("dealer", "password1", level=50, coins=100_000)
    bettor = store.create_user("bettor", "password1", level=50, coins=100_000)
    clients: list[Client] = []
    try:
        async with running_nodes(store, ROOMS, nodes, speed=1.0, shutdown_grace=0.5) as running:
            for _ in range(200):
                if any("t1" in server.drivers for server, _ in running):
                    break
                await asyncio.sleep(0.05)
            runs = 0 if "t1" in running[0][0].drivers else 1
            at_table, other = running[runs][1], running[1 - runs][1]
            await _scene(store, secrets, dealer.user_id, bettor.user_id, at_table, other, clients)
    finally:
        for client in clients:
            await client.close()
        store.close()


async def _scene(
    store: Store,
    secrets: dict[str, str],
    dealer: int,
    bettor: int,
    at_table: str,
    other: str,
    clients: list[Client],
) -> None:
    """The dealer and a bettor at the node running the table; the operators at the other."""
    d = await Client.connect(at_table, store.create_session(dealer))
    p = await Client.connect(at_table, store.create_session(bettor))
    clients += [d, p]
    await d.sit("t1", 0)
    await p.sit("t1", 1)
    if (await p.wait_view())["phase"] != "betting":
        await p.wait_for(lambda m: m.get("event") == "betting_opened", 30)
    jar = aiohttp.CookieJar
    async with (
        aiohttp.ClientSession(cookie_jar=jar(unsafe=True)) as boss,
        aiohttp.ClientSession(cookie_jar=jar(unsafe=True)) as second,
    ):
        for name, http in (("boss", boss), ("second", second)):
            await console_login(http, other, name, secrets[name])

        async def post(http: aiohttp.ClientSession, path: str, body: Any) -> tuple[int, Any]:
            async with http.post(f"{other}/api/admin/{path}", json=body) as resp:
                return resp.status, await resp.json()

        grant = f"users/{dealer}/grant"
        # Asked before any bet, when the dealer's book needs nothing: it waits.
        status, body = await post(boss, grant, {"coins": -97_000, "reason": "a test"})
        assert status == 202, body
        waiting = body["request"]["id"]
        for _ in range(5):
            await p.bet("player", 10)  # 5,000 on Player: the dealer's book needs 5,000
        status, body = await post(boss, grant, {"coins": -96_000, "reason": "a test"})
        assert (status, body["error"]["code"]) == (409, "dealer_cannot_cover"), body
        status, body = await post(second, f"grants/{waiting}/approve", {"reason": "a test"})
        assert (status, body["error"]["code"]) == (409, "dealer_cannot_cover"), body
        assert store.get_user(dealer).coins == 100_000
        status, body = await post(boss, grant, {"coins": -90_000, "reason": "a test"})
        assert status == 200, body
        assert body["user"]["coins"] == 10_000
    # The table that seats the dealer was told at once, in the round in play.
    assert (await d.resync())["me"]["coins"] == 10_000
