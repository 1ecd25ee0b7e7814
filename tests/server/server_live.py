"""A live server on 127.0.0.1 (ephemeral port) over a real SQLite file, timers sped up."""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aiohttp.test_utils import TestServer
from argon2 import PasswordHasher

from baccarat.client import Client, CommandError
from baccarat.server import Server, create_app
from baccarat.server.config import parse_rooms
from baccarat.store import Store, User, open_store
from migrated import migrated_sqlite
from pgschema import migrated_schema

SPEED = 10.0
TEST_LIMIT = 120.0
"""Seconds a live test may run before it fails (a bound on a hang, not a speed test)."""
FAST_HASH = PasswordHasher(time_cost=1, memory_cost=1024, parallelism=1)

ROOMS: dict[str, Any] = {
    "server": {
        "start_coins": 50_000,
        "login_attempts": 3,
        "login_attempts_per_ip": 1000,
        "register_per_ip": 1000,
        "register_per_hour": 1000,
    },
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
        "betting": 8.0,
        "squeeze": 4.0,
        "result": 2.0,
        "shuffle": 1.0,
        "reconnect_grace": 30.0,
    },
}
SLOW_SQUEEZE: dict[str, Any] = {**ROOMS, "timers": {**ROOMS["timers"], "squeeze": 600.0}}
"""The same rooms with a squeeze that waits a minute: a phase that holds still for a test."""


@dataclass
class Live:
    """A running server and what a test needs to talk to it."""

    base: str
    server: Server
    store: Store
    test_server: TestServer
    clients: list[Client] = field(default_factory=list)
    """The clients of ``client``, closed when the test ends (passed or not)."""

    async def user(self, name: str, coins: int = 100_000, level: int = 50) -> tuple[User, str]:
        """Create an account with a session; return it and its token."""
        user = self.store.create_user(name, "password1", level=level, coins=coins)
        return user, self.store.create_session(user.user_id)

    async def client(self, name: str, coins: int = 100_000, **kw: Any) -> Client:
        """A connected client of a new account."""
        _, token = await self.user(name, coins)
        client = await Client.connect(self.base, token, **kw)
        self.clients.append(client)
        return client


async def start_live(
    tmp_path: Path, rooms: dict[str, Any] | None = None, db_url: str | None = None, **kw: Any
) -> Live:
    """Start a server in this process on an ephemeral port (SQLite in ``tmp_path`` by default)."""
    store = open_store(db_url or migrated_sqlite(tmp_path / "baccarat.db"), hasher=FAST_HASH)
    kw.setdefault("shutdown_grace", 1.0)
    server = Server(store, parse_rooms(rooms or ROOMS), speed=SPEED, **kw)
    ts = TestServer(create_app(server), host="127.0.0.1", port=0)
    await ts.start_server()
    return Live(str(ts.make_url("")).rstrip("/"), server, store, ts)


_TASKS: set[asyncio.Task[None]] = set()


def auto_open(client: Client, squeeze_steps: int = 0) -> None:
    """Make ``client`` open (after ``squeeze_steps`` peel moves) every card it controls."""

    async def open_card(hand: str) -> None:
        with contextlib.suppress(CommandError):
            for i in range(1, squeeze_steps + 1):
                await client.squeeze(hand, i / (squeeze_steps + 1), "br")
            await client.open(hand)

    def on_message(msg: dict[str, Any]) -> None:
        if (
            msg.get("type") == "event"
            and msg["event"] == "squeeze_started"
            and msg["data"]["controller_user_id"] == client.user_id
        ):
            task = asyncio.get_running_loop().create_task(open_card(msg["data"]["hand"]))
            _TASKS.add(task)
            task.add_done_callback(_TASKS.discard)

    client.on_message = on_message


def is_event(kind: str) -> Callable[[dict[str, Any]], bool]:
    """A predicate for ``Client.wait_for``: a table event of this kind."""
    return lambda m: m.get("type") == "event" and m.get("event") == kind


def live_test(
    *, postgres: bool = False, uvloop: bool = False, **server_kw: Any
) -> Callable[[Callable[[Live], Awaitable[None]]], Callable[[Path], None]]:
    """Run an async test against a fresh live server, in its own event loop and thread.

    With ``postgres`` the store is a private schema of the test PostgreSQL server; with
    ``uvloop`` the loop is uvloop's, as ``baccarat serve`` runs (its clock and timers count
    whole milliseconds).

    The loop runs on a worker thread so that the test does not depend on the state of the
    main thread's loop (a session-wide fixture elsewhere may keep one running).
    """

    def wrap(test: Callable[[Live], Awaitable[None]]) -> Callable[[Path], None]:
        async def main(tmp_path: Path, db_url: str | None) -> None:
            lv = await start_live(tmp_path, db_url=db_url, **server_kw)
            try:
                async with asyncio.timeout(TEST_LIMIT):
                    await test(lv)
            finally:
                for client in lv.clients:
                    with contextlib.suppress(Exception):
                        await client.close()
                await lv.test_server.close()
                lv.store.close()

        def runner(tmp_path: Path) -> None:
            with contextlib.ExitStack() as stack:
                db_url = stack.enter_context(migrated_schema("srv")) if postgres else None
                failure: list[BaseException] = []

                def target() -> None:
                    try:
                        with asyncio.Runner(loop_factory=_loop_factory(uvloop)) as run:
                            run.run(main(tmp_path, db_url))
                    except BaseException as exc:
                        failure.append(exc)

                thread = threading.Thread(target=target, name=test.__name__)
                thread.start()
                thread.join()
                if failure:
                    raise failure[0]

        runner.__name__ = test.__name__
        runner.__qualname__ = test.__qualname__
        runner.__doc__ = test.__doc__
        runner.__module__ = test.__module__
        return runner

    return wrap


def _loop_factory(uvloop: bool) -> Callable[[], asyncio.AbstractEventLoop] | None:
    if not uvloop:
        return None
    import uvloop as uv

    return uv.new_event_loop
