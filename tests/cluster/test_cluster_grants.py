"""An operator's grant at one node for a user whose table another node runs is decided at
that node: coins the dealer's book needs mid-round are not taken back, whether granted or
approved (the request is passed on, and that table refuses it), and a grant it can take
reaches the table at once. Two servers on one directory (in process, and over Redis) and
one database."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import aiohttp
import pyotp
from aiohttp.test_utils import TestServer
from test_cluster_server import _rooms

from baccarat.client import Client
from baccarat.cluster import Directory
from baccarat.server import Server, create_app
from baccarat.server.config import parse_rooms
from baccarat.store import open_store
from serving import free_port

NodeFactory = Callable[[], Directory]

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
    secrets = {}
    for name in ("boss", "second"):
        op = store.create_user(name, "password1", level=50)
        store.set_role(op.user_id, "operator", "a test operator")
        secrets[name] = pyotp.random_base32()
        store.set_totp(op.user_id, secrets[name], enrolled=True)
    dealer = store.create_user("dealer", "password1", level=50, coins=100_000)
    bettor = store.create_user("bettor", "password1", level=50, coins=100_000)
    servers: list[Server] = []
    runners: list[TestServer] = []
    clients: list[Client] = []
    try:
        bases = []
        for node in ("A", "B"):
            port = free_port()
            base = f"http://127.0.0.1:{port}"
            server = Server(store, ROOMS, speed=1.0, shutdown_grace=0.5,
                            directory=nodes(), node_id=node, public_url=base)  # fmt: skip
            ts = TestServer(create_app(server), host="127.0.0.1", port=port)
            await ts.start_server()
            servers.append(server)
            runners.append(ts)
            bases.append(base)
        for _ in range(200):
            if any("t1" in s.drivers for s in servers):
                break
            await asyncio.sleep(0.05)
        runs = 0 if "t1" in servers[0].drivers else 1
        at_table, other = bases[runs], bases[1 - runs]
        d = await Client.connect(at_table, store.create_session(dealer.user_id))
        p = await Client.connect(at_table, store.create_session(bettor.user_id))
        clients += [d, p]
        await d.sit("t1", 0)
        await p.sit("t1", 1)
        if (await p.wait_view())["phase"] != "betting":
            await p.wait_for(lambda m: m.get("event") == "betting_opened", 30)
        jar = aiohttp.CookieJar(unsafe=True)
        async with (
            aiohttp.ClientSession(cookie_jar=jar) as boss,
            aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as second,
        ):
            for name, http in (("boss", boss), ("second", second)):
                code = pyotp.TOTP(secrets[name]).now()
                creds = {"username": name, "password": "password1", "code": code}
                async with http.post(f"{other}/api/admin/login", json=creds) as resp:
                    assert resp.status == 200

            async def post(http: aiohttp.ClientSession, path: str, body: Any) -> tuple[int, Any]:
                async with http.post(f"{other}/api/admin/{path}", json=body) as resp:
                    return resp.status, await resp.json()

            grant = f"users/{dealer.user_id}/grant"
            # Asked before any bet, when the dealer's book needs nothing: it waits.
            status, body = await post(boss, grant, {"coins": -97_000, "reason": "a test"})
            assert status == 202, body
            waiting = body["request"]["id"]
            for _ in range(5):
                await p.bet("player", 10)  # 5,000 on Player: the dealer's book needs 5,000
            status, body = await post(boss, grant, {"coins": -96_000, "reason": "a test"})
            assert (status, body["error"]["code"]) == (409, "dealer_cannot_cover"), body
            approve = f"grants/{waiting}/approve"
            status, body = await post(second, approve, {"reason": "a test"})
            assert (status, body["error"]["code"]) == (409, "dealer_cannot_cover"), body
            assert store.get_user(dealer.user_id).coins == 100_000
            status, body = await post(boss, grant, {"coins": -90_000, "reason": "a test"})
            assert status == 200, body
            assert body["user"]["coins"] == 10_000
        # The table that seats the dealer was told at once, in the round in play.
        assert (await d.resync())["me"]["coins"] == 10_000
    finally:
        for client in clients:
            await client.close()
        for ts in runners:
            await ts.close()
        store.close()
