"""Password work runs on its own small pool; a full pool answers 503 at once."""

from __future__ import annotations

import asyncio
import threading

import aiohttp
from http_from import login_from, post
from server_live import ROOMS, Live, live_test

from baccarat.client import Client

ONE_SLOT = {
    **ROOMS,
    "server": {**ROOMS["server"], "password_hash_workers": 1, "password_hash_queue": 0},
}


async def _hold(live: Live) -> tuple[threading.Event, asyncio.Future[bool]]:
    """Occupy the only password thread until the returned event is set."""
    release = threading.Event()
    started = threading.Event()

    def block() -> bool:
        started.set()
        return release.wait(60)

    job = asyncio.ensure_future(live.server.passwords.run(block))
    await asyncio.to_thread(started.wait, 10)
    return release, job


@live_test(rooms=ONE_SLOT)
async def test_a_login_past_the_password_queue_is_answered_503_with_retry_after(live: Live) -> None:
    await live.user("alice")
    release, job = await _hold(live)
    try:
        answer = await login_from(live.base, "alice", "password1")
        assert (answer.status, answer.code) == (503, "server_busy")
        assert int(answer.headers["Retry-After"]) >= 1
        body = {"username": "mei", "password": "secret12"}
        answer = await post(live.base, "/api/register", body)
        assert (answer.status, answer.code) == (503, "server_busy")
    finally:
        release.set()
        assert await job
    assert (await login_from(live.base, "alice", "password1")).status == 200
    assert [u.username for u in live.store.list_users()] == ["alice"]


@live_test(rooms=ONE_SLOT)
async def test_busy_password_threads_do_not_hold_up_sessions_sockets_or_seats(live: Live) -> None:
    # Hashing has threads of its own: with every one of them taken, the rest of the server
    # (session lookups on the default pool, the socket's login, a seat) still answers.
    _, token = await live.user("alice")
    release, job = await _hold(live)
    try:
        async with aiohttp.ClientSession() as http:
            me = await http.get(live.base + "/api/me", headers={"Authorization": f"Bearer {token}"})
            assert me.status == 200
        client = await Client.connect(live.base, token)
        try:
            assert client.hello["user"]["name"] == "alice"
            answer = await client.sit("t1", 0)
            assert answer["type"] == "ack"
        finally:
            await client.close()
    finally:
        release.set()
        await job
    assert live.server.passwords.jobs == 0
