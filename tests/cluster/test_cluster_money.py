"""With many nodes, coins in a round one node still deals cannot be seated on another."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from aiohttp.test_utils import TestServer

from baccarat.cards import deck, parse_cards
from baccarat.client import Client, CommandError
from baccarat.cluster import LocalDirectory
from baccarat.server import Server, create_app
from baccarat.server.config import parse_rooms
from baccarat.server.http.routes import SERVER
from baccarat.shoe import Shoe
from baccarat.store import open_store
from serving import free_port

PLAYER_NATURAL = ["4S", "3H", "5D", "4C"]
"""Player 9 (4, 5) beats Banker 7 (3, 4): no third card, no pair."""


def _rooms(tables: list[str]) -> dict[str, Any]:
    return {
        "server": {"start_coins": 100_000},
        "rooms": [
            {
                "id": "standard",
                "name": "Standard",
                "chip_unit": 100,
                "bettor_floor": 1000,
                "dealer_floor": 35000,
                "tables": tables,
            }
        ],
        # Squeezes wait for their controller: the test sets the pace.
        "timers": {"betting": 20.0, "squeeze": 600.0, "result": 2.0, "shuffle": 1.0},
    }


def _server(ts: TestServer) -> Server:
    server: Server = ts.app[SERVER]
    return server


def _event(kind: str, hand: str | None = None) -> Any:
    return lambda m: (
        m.get("type") == "event"
        and m.get("event") == kind
        and (hand is None or m["data"].get("hand") == hand)
    )


async def test_a_bettor_whose_coins_are_in_play_on_one_node_cannot_sit_on_another(
    tmp_path: Path,
) -> None:
    store = open_store(f"sqlite:///{tmp_path / 'shared.db'}")
    directory = LocalDirectory()
    tokens = {}
    for name, coins in (("dealer", 1_000_000), ("zoe", 100_000), ("yara", 100_000)):
        user = store.create_user(name, "password1", level=50, coins=coins)
        tokens[name] = store.create_session(user.user_id)
    servers: list[TestServer] = []
    clients: list[Client] = []
    try:
        bases = []
        for node, tables in (("A", ["t1"]), ("B", ["t1", "t2"])):
            port = free_port()
            base = f"http://127.0.0.1:{port}"
            server = Server(
                store,
                parse_rooms(_rooms(tables)),
                speed=10.0,
                shutdown_grace=0.5,
                directory=directory,
                node_id=node,
                public_url=base,
            )
            ts = TestServer(create_app(server), host="127.0.0.1", port=port)
            await ts.start_server()
            servers.append(ts)
            bases.append(base)
        a, b = bases
        node_a = _server(servers[0])
        assert set(node_a.drivers) == {"t1"} and set(_server(servers[1]).drivers) == {"t2"}
        node_a.drivers["t1"].table.shoe_factory = lambda: Shoe(
            parse_cards(PLAYER_NATURAL + [str(c) for c in deck()] * 2), bytes(32)
        )
        dealer = await Client.connect(a, tokens["dealer"])
        zoe = await Client.connect(a, tokens["zoe"])
        yara_a = await Client.connect(a, tokens["yara"])
        yara_b = await Client.connect(b, tokens["yara"])
        clients += [dealer, zoe, yara_a, yara_b]
        await zoe.sit("t1", 1)
        await yara_a.sit("t1", 2)
        await dealer.sit("t1", 0)
        await yara_a.wait_for(_event("betting_opened"))
        for _ in range(5):
            await zoe.bet("player", 10)  # Zoe controls both hands
        await yara_a.bet("player", 10)
        await yara_a.wait_for(_event("betting_closed"))
        await yara_a.stand()  # her 1,000 stay in play at t1
        with pytest.raises(CommandError) as refused:
            await yara_b.sit("t2", 1)
        assert refused.value.code == "already_seated_elsewhere"
        await zoe.wait_for(_event("squeeze_started", "player"))
        await zoe.open("player")
        await zoe.wait_for(_event("squeeze_started", "banker"))
        await zoe.open("banker")
        await zoe.wait_for(_event("round_settled"))
        # Once the round has landed in the ledger, node A gives the claim back.
        async with asyncio.timeout(30):
            while await directory.seat_of(yara_b.user_id) is not None:
                await asyncio.sleep(0.01)
        await yara_b.sit("t2", 1)
        seated = _server(servers[1]).drivers["t2"].table.occupant(yara_b.user_id)
        assert seated is not None
        assert seated.coins == store.balance(yara_b.user_id) == 100_990
    finally:
        for client in clients:
            await client.close()
        for ts in servers:
            await ts.close()
        store.close()
