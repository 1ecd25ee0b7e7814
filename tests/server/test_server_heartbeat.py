"""The heartbeat: quiet sockets are pinged, silent ones dropped, pings answered."""

from __future__ import annotations

import asyncio
import time
from typing import Any, cast

import aiohttp
from server_live import Live, live_test

from baccarat.client import ws_url
from baccarat.server.sockets.heartbeat import SLICE, Heartbeat
from baccarat.server.sockets.hub import Hub

BEAT = 0.2
"""Seconds between two sweeps in these tests."""


async def _socket(
    live: Live, http: aiohttp.ClientSession, name: str
) -> aiohttp.ClientWebSocketResponse:
    _, token = await live.user(name)
    ws = await http.ws_connect(
        ws_url(live.base), headers={"Authorization": f"Bearer {token}"}, autoping=False
    )
    assert (await ws.receive_json())["type"] == "hello"
    return ws


@live_test(heartbeat=BEAT)
async def test_a_client_that_never_answers_a_ping_is_dropped(live: Live) -> None:
    async with aiohttp.ClientSession() as http:
        ws = await _socket(live, http, "deaf")
        started = time.monotonic()
        pings = 0
        while True:
            msg = await asyncio.wait_for(ws.receive(), 10 * BEAT)
            if msg.type == aiohttp.WSMsgType.PING:
                pings += 1  # and no pong
            else:
                break
        assert msg.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED)
        assert ws.close_code == 1001
        assert pings == 1
        # Left alone at the first look (new), pinged at the next, dropped at the one after.
        assert time.monotonic() - started < 10 * BEAT
    assert (
        'baccarat_clients_dropped_total{reason="no_pong"} 1.0'
        in live.server.metrics.render().decode()
    )


@live_test(heartbeat=BEAT)
async def test_a_quiet_client_that_answers_stays_and_is_pinged_every_other_look(
    live: Live,
) -> None:
    async with aiohttp.ClientSession() as http:
        ws = await _socket(live, http, "quiet")
        pings = 0
        until = time.monotonic() + 12 * BEAT
        while time.monotonic() < until:
            try:
                msg = await asyncio.wait_for(ws.receive(), until - time.monotonic())
            except TimeoutError:
                break
            assert msg.type == aiohttp.WSMsgType.PING, msg
            pings += 1
            await ws.pong(msg.data)
        assert not ws.closed
        assert 4 <= pings <= 7
        # Still served: a command is answered.
        await ws.send_json({"type": "ping", "id": 1})
        msg = await asyncio.wait_for(ws.receive(), 5)
        while msg.type == aiohttp.WSMsgType.PING:
            await ws.pong(msg.data)
            msg = await asyncio.wait_for(ws.receive(), 5)
        assert msg.json()["type"] == "ack"
        await ws.close()


@live_test(heartbeat=BEAT)
async def test_a_busy_client_is_not_pinged_and_its_ping_is_answered(live: Live) -> None:
    async with aiohttp.ClientSession() as http:
        ws = await _socket(live, http, "busy")
        for n in range(8):
            await ws.ping(f"p{n}".encode())
            msg = await asyncio.wait_for(ws.receive(), 5)
            assert (msg.type, msg.data) == (aiohttp.WSMsgType.PONG, f"p{n}".encode())
            await asyncio.sleep(BEAT / 2)
        await ws.close()


async def test_a_sweep_of_many_sockets_lets_the_loop_turn_between_slices() -> None:
    # Stand-ins with the one method the sweep calls: what is read is when each was looked at.
    turns = 0
    looked: list[int] = []

    class Quiet:
        def beat(self) -> None:
            looked.append(turns)

    hub = Hub()
    count = 2 * SLICE + 1
    hub.connections.update(cast(Any, Quiet()) for _ in range(count))

    async def turn() -> None:
        nonlocal turns
        while True:
            turns += 1
            await asyncio.sleep(0)

    tasks = [asyncio.create_task(turn()), asyncio.create_task(Heartbeat(hub, 0.01).run())]
    try:
        while len(looked) < count:
            await asyncio.sleep(0.01)
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    first_sweep = looked[:count]
    # Three slices, each in a turn of its own: the loop ran other work between them.
    assert len(set(first_sweep)) == 3
    assert [first_sweep.count(t) for t in sorted(set(first_sweep))] == [SLICE, SLICE, 1]
