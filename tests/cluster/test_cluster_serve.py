"""Two ``baccarat serve`` processes, one database, one Redis: one system.

Node A lists tables t1 and t2 and starts first, so it runs both; node B lists t1, t2 and t3
and runs only t3. A user seated on A is refused a seat on B, every lobby shows every table
with the URL of the node that runs it, and when A stops, B takes A's tables over.
"""

from __future__ import annotations

import asyncio
import json
import urllib.request
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest

from baccarat.client import Client, CommandError
from baccarat.protocol.requests import Watch
from baccarat.store import open_store
from pgschema import private_schema
from services import REDIS_URL, redis_prefix
from serving import Serve, free_port, health, run_serve, start_serve, wait_until

SPEED = 10.0


def _rooms(path: Path, tables: list[str]) -> Path:
    path.write_text(
        "[server]\nstart_coins = 100000\n\n"
        '[[rooms]]\nid = "standard"\nname = "Standard"\nchip_unit = 100\n'
        f"bettor_floor = 1000\ndealer_floor = 35000\ntables = {json.dumps(tables)}\n"
    )
    return path


def _get(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=5) as resp:
        return json.load(resp)


def _node(db: str, rooms: Path, prefix: str, name: str) -> Serve:
    port = free_port()
    return start_serve(
        "--db", db, "--rooms", str(rooms), "--speed", str(SPEED),
        "--redis", REDIS_URL, "--redis-prefix", prefix,
        "--node-id", name, "--public-url", f"http://127.0.0.1:{port}", "--log-level", "warning",
        port=port,
    )  # fmt: skip


def _lobby_urls(base: str) -> dict[str, str]:
    return {t["table_id"]: t["url"] for t in _get(base + "/api/lobby")["tables"]}


async def test_two_nodes_run_each_table_once_and_keep_one_seat_per_user(tmp_path: Path) -> None:
    with ExitStack() as stack:
        db = stack.enter_context(private_schema("cl"))
        prefix = stack.enter_context(redis_prefix())
        store = open_store(db)  # creates the schema before either node starts
        tokens = {}
        for name in ("alice", "bob"):
            user = store.create_user(name, "password1", level=50, coins=100_000)
            tokens[name] = store.create_session(user.user_id)
        store.close()
        rooms_a = _rooms(tmp_path / "a.toml", ["t1", "t2"])
        rooms_b = _rooms(tmp_path / "b.toml", ["t1", "t2", "t3"])
        node_a = stack.enter_context(_node(db, rooms_a, prefix, "A"))
        a, b = node_a.url, stack.enter_context(_node(db, rooms_b, prefix, "B")).url

        # Each table runs on exactly one node, and every lobby says where. The placement
        # evens them out: A, which knows two tables, keeps one and hands the other to B.
        wait_until(
            lambda: health(a)["tables"] == 1 and health(b)["tables"] == 2,
            "the tables to spread over both nodes",
        )
        urls = wait_until(
            lambda: (
                (found := _lobby_urls(a)) == _lobby_urls(b)
                and set(found.values()) == {a, b}
                and found
            ),
            "both lobbies to agree where each table runs",
        )
        assert urls["t3"] == b
        [on_a] = [t for t, url in urls.items() if url == a]

        alice_a = await Client.connect(a, tokens["alice"])
        alice_b = await Client.connect(b, tokens["alice"])
        bob_b = await Client.connect(b, tokens["bob"])
        try:
            await alice_a.sit(on_a, 1)
            with pytest.raises(CommandError) as refused:
                await alice_b.sit("t3", 1)
            assert refused.value.code == "already_seated_elsewhere"
            with pytest.raises(CommandError) as elsewhere:
                await alice_b.send(Watch(on_a))
            assert elsewhere.value.code == "table_elsewhere"
            assert elsewhere.value.details == {"url": a}
            await bob_b.sit("t3", 1)

            # Standing up on A frees the user for B.
            await alice_a.stand()
            for _ in range(100):
                try:
                    await alice_b.sit("t3", 2)
                    break
                except CommandError as exc:
                    assert exc.code == "already_seated_elsewhere"
                    await asyncio.sleep(0.05)
            else:
                raise AssertionError("the seat claim was never released")
        finally:
            for client in (alice_a, alice_b, bob_b):
                await client.close()

        # A leaves: B takes its tables over, and the lobby points at B.
        assert node_a.stop() == 0
        wait_until(lambda: health(b)["tables"] == 3, "B to take A's tables over")
        wait_until(lambda: _lobby_urls(b) == {"t1": b, "t2": b, "t3": b}, "B's lobby to follow")


def test_an_unreachable_redis_stops_serve_with_one_line(tmp_path: Path) -> None:
    port = free_port()  # nothing listens there
    done = run_serve(
        "--db", f"sqlite:///{tmp_path / 'x.db'}", "--port", str(free_port()),
        "--redis", f"redis://127.0.0.1:{port}/0",
    )  # fmt: skip
    assert done.returncode == 2
    assert "Redis is not reachable" in done.stderr


def test_redis_with_a_picked_port_needs_a_public_url(tmp_path: Path) -> None:
    done = run_serve(
        "--db", f"sqlite:///{tmp_path / 'x.db'}", "--port", "0",
        "--redis", REDIS_URL,
    )  # fmt: skip
    assert done.returncode == 2
    assert "--public-url" in done.stderr
