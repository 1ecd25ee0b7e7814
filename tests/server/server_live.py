"""A live server on 127.0.0.1 (ephemeral port) over a real SQLite file, timers sped up."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from aiohttp.test_utils import TestServer
from argon2 import PasswordHasher

from baccarat.client import Client
from baccarat.server import Server, create_app
from baccarat.server.config import parse_rooms
from baccarat.store import Store, User, open_store

SPEED = 20.0
FAST_HASH = PasswordHasher(time_cost=1, memory_cost=1024, parallelism=1)

ROOMS: dict[str, Any] = {
    "server": {"start_coins": 50_000, "login_attempts": 3, "login_attempts_per_ip": 1000},
    "rooms": [
        {
            "id": "standard",
            "name": "Standard",
            "chip_unit": 100,
            "bettor_floor": 1000,
            "dealer_floor": 35000,
            "tables": ["t1", "t2"],
        }
    ],
    "timers": {
        "betting": 6.0,
        "squeeze": 4.0,
        "result": 2.0,
        "shuffle": 1.0,
        "reconnect_grace": 30.0,
    },
}


@dataclass
class Live:
    """A running server and what a test needs to talk to it."""

    base: str
    server: Server
    store: Store
    test_server: TestServer

    async def user(self, name: str, coins: int = 100_000, level: int = 50) -> tuple[User, str]:
        """Create an account with a session; return it and its token."""
        user = self.store.create_user(name, "password1", level=level, coins=coins)
        return user, self.store.create_session(user.user_id)

    async def client(self, name: str, coins: int = 100_000, **kw: Any) -> Client:
        """A connected client of a new account."""
        _, token = await self.user(name, coins)
        return await Client.connect(self.base, token, **kw)


async def start_live(tmp_path: Path, rooms: dict[str, Any] | None = None, **kw: Any) -> Live:
    """Start a server in this process on an ephemeral port."""
    store = open_store(f"sqlite:///{tmp_path / 'baccarat.db'}", hasher=FAST_HASH)
    server = Server(store, parse_rooms(rooms or ROOMS), speed=SPEED, **kw)
    ts = TestServer(create_app(server), host="127.0.0.1", port=0)
    await ts.start_server()
    return Live(str(ts.make_url("")).rstrip("/"), server, store, ts)


@pytest.fixture
async def live(tmp_path: Path) -> AsyncIterator[Live]:
    """A live server for one test."""
    lv = await start_live(tmp_path)
    yield lv
    await lv.test_server.close()
    lv.store.close()
