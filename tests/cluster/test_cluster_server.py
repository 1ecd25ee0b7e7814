"""Two servers in one process sharing a ``LocalDirectory`` and a database: one system."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import pytest
from aiohttp.test_utils import TestServer

from baccarat.client import Client, CommandError
from baccarat.cluster import LocalDirectory, SeatClaim
from baccarat.protocol.requests import TakeSeat, Watch
from baccarat.server import Server, create_app
from baccarat.server.config import parse_rooms
from baccarat.server.http.routes import SERVER
from baccarat.store import BetRecord, open_store
from serving import free_port


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
    }


async def test_servers_sharing_a_directory_split_tables_and_keep_one_seat_per_user(
    tmp_path: Path,
) -> None:
    store = open_store(f"sqlite:///{tmp_path / 'shared.db'}")
    directory = LocalDirectory()
    tokens = {}
    for name in ("alice", "bob"):
        user = store.create_user(name, "password1", level=50, coins=100_000)
        tokens[name] = store.create_session(user.user_id)
    servers: list[TestServer] = []
    clients: list[Client] = []
    try:
        bases = []
        for node, tables in (("A", ["t1", "t2"]), ("B", ["t1", "t2", "t3"])):
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
        drivers = [set(_server(ts).drivers) for ts in servers]
        assert drivers == [{"t1", "t2"}, {"t3"}]
        lobby = await _server(servers[1]).lobby.message()
        assert {t["table_id"]: t["url"] for t in lobby["tables"]} == {"t1": a, "t2": a, "t3": b}

        alice_a = await Client.connect(a, tokens["alice"])
        alice_b = await Client.connect(b, tokens["alice"])
        clients += [alice_a, alice_b]
        await alice_a.sit("t1", 1)
        with pytest.raises(CommandError) as refused:
            await alice_b.sit("t3", 1)
        assert refused.value.code == "already_seated_elsewhere"
        with pytest.raises(CommandError) as elsewhere:
            await alice_b.send(Watch("t2"))
        assert elsewhere.value.code == "table_elsewhere"
        assert elsewhere.value.details == {"url": a}

        # A stops: its leases go back, and B takes its tables at once, with alice's seat.
        await servers[0].close()
        for _ in range(500):
            if set(_server(servers[1]).drivers) == {"t1", "t2", "t3"}:
                break
            await asyncio.sleep(0.01)
        assert set(_server(servers[1]).drivers) == {"t1", "t2", "t3"}
        for _ in range(500):
            if alice_b.user_id in _server(servers[1]).seating.seats.at:
                break
            await asyncio.sleep(0.01)
        assert await directory.seat_of(alice_a.user_id) == SeatClaim("t1", 1)
        assert _server(servers[1]).seating.seats.at[alice_b.user_id] == ("t1", 1)
        await alice_b.stand()
        await alice_b.sit("t3", 1)
        lobby = await _server(servers[1]).lobby.message()
        assert {t["table_id"]: t["url"] for t in lobby["tables"]} == {"t1": b, "t2": b, "t3": b}
    finally:
        for client in clients:
            await client.close()
        for ts in servers:
            await ts.close()
        store.close()


def _server(ts: TestServer) -> Server:
    server: Server = ts.app[SERVER]
    return server


async def test_a_node_taking_a_table_voids_that_tables_rounds_left_in_escrow_only(
    tmp_path: Path,
) -> None:
    store = open_store(f"sqlite:///{tmp_path / 'shared.db'}")
    dealer = store.create_user("dealer", "password1", level=50, coins=100_000)
    bettor = store.create_user("bettor", "password1", level=50, coins=100_000)
    for table_id in ("t1", "t3"):
        # What a node that died mid-round left behind at each table.
        store.record_shoe_start(f"shoe-{table_id}", table_id, "00" * 32)
        bets = [BetRecord(bettor.user_id, "tie", 2, 200, time.time())]
        store.escrow_round(f"r-{table_id}", table_id, f"shoe-{table_id}", 1, dealer.user_id, bets)
    directory = LocalDirectory()
    servers: list[TestServer] = []
    try:
        for node, tables in (("A", ["t1", "t2"]), ("B", ["t1", "t2", "t3"])):
            server = Server(
                store,
                parse_rooms(_rooms(tables)),
                speed=10.0,
                directory=directory,
                node_id=node,
                public_url=f"http://{node.lower()}.example:8000",
            )
            ts = TestServer(create_app(server), host="127.0.0.1", port=0)
            await ts.start_server()
            servers.append(ts)
            if node == "A":
                # A took t1 and voided its round; t3 is nobody's yet, its round waits.
                assert store.get_round("r-t1").status == "voided"
                assert store.get_round("r-t3").status == "escrowed"
        assert store.get_round("r-t3").status == "voided"
        assert store.balance(bettor.user_id) == 100_000
        assert store.audit().ok
    finally:
        for ts in servers:
            await ts.close()
        store.close()


async def test_a_server_without_a_shared_directory_is_a_system_of_one(tmp_path: Path) -> None:
    store = open_store(f"sqlite:///{tmp_path / 'b.db'}")
    server = Server(store, parse_rooms(_rooms(["t1"])))
    directory = server.node.directory
    token = await directory.acquire("t9", "A", 0.01)
    assert token is not None
    await asyncio.sleep(0.05)
    assert await directory.renew("t9", "A", token)
    store.close()


async def test_a_listed_table_no_node_runs_yet_is_opening_not_unknown(tmp_path: Path) -> None:
    # A node died holding t1: its lease has not run out, but its heartbeat has (no address).
    # A page that followed the table here must wait for it, not be told it does not exist.
    store = open_store(f"sqlite:///{tmp_path / 'shared.db'}")
    user = store.create_user("alice", "password1", level=50, coins=100_000)
    token = store.create_session(user.user_id)
    directory = LocalDirectory()
    lease = await directory.acquire("t1", "A", 60.0)
    assert lease is not None
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    server = Server(
        store,
        parse_rooms(_rooms(["t1", "t2"])),
        speed=10.0,
        shutdown_grace=0.5,
        directory=directory,
        node_id="B",
        public_url=base,
        lease_ttl=0.6,
    )
    ts = TestServer(create_app(server), host="127.0.0.1", port=port)
    await ts.start_server()
    client = await Client.connect(base, token)
    try:
        assert set(server.drivers) == {"t2"}
        for command in (Watch("t1"), TakeSeat("t1", 1)):
            with pytest.raises(CommandError) as opening:
                await client.send(command)
            assert opening.value.code == "table_opening", command
        with pytest.raises(CommandError) as unknown:
            await client.send(Watch("t9"))
        assert unknown.value.code == "unknown_table"
        # The dead node's address, were it known, is still an answer.
        await directory.register("A", "http://a.example:8000", 60.0)
        with pytest.raises(CommandError) as elsewhere:
            await client.send(Watch("t1"))
        assert elsewhere.value.code == "table_elsewhere"
        # Once the lease runs out, this node takes the table and the same command succeeds.
        assert await directory.release("t1", "A", lease)
        for _ in range(500):
            if "t1" in server.drivers:
                break
            await asyncio.sleep(0.01)
        await client.send(Watch("t1"))
        # A table this node has leased but not yet started is not elsewhere (at its own
        # address): the page would only reconnect here.
        assert await directory.acquire("t3", "B", 60.0) is not None
        assert await directory.owner("t3") == ("B", base)
        assert await server.lobby.elsewhere("t3") is None
    finally:
        await client.close()
        await ts.close()
        store.close()
