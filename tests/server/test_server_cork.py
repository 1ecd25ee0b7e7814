"""A corked connection writes what a table's step sent it in one go, in order."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any, cast

from aiohttp import web

from baccarat.server.sockets.connection import Connection
from baccarat.server.sockets.frames import encode, payload


class Transport:
    """The socket's transport as the connection uses it: it records each write."""

    def __init__(self) -> None:
        self.writes: list[bytes] = []
        self.backlog = 0

    def write(self, data: bytes) -> None:
        self.writes.append(data)

    def get_write_buffer_size(self) -> int:
        return self.backlog

    def is_closing(self) -> bool:
        return False

    def abort(self) -> None:
        self.backlog = 0


def _connection(transport: Transport) -> Connection:
    ws = cast(web.WebSocketResponse, SimpleNamespace(compress=False))
    request = cast(web.Request, SimpleNamespace(transport=transport))
    conn = Connection(ws, request, user_id=1)
    conn.start()
    return conn


def _messages(data: bytes) -> list[bytes]:
    """Split concatenated frames (as ``frames.text_frame`` makes them) into their payloads."""
    out = []
    while data:
        n = data[1]
        head = 2 + (2 if n == 126 else 8 if n == 127 else 0)
        size = n if n < 126 else int.from_bytes(data[2:head], "big")
        out.append(payload(data[: head + size]))
        data = data[head + size :]
    return out


async def test_a_corked_step_is_one_write_in_order() -> None:
    transport = Transport()
    conn = _connection(transport)
    conn.cork()
    conn.send_frame(encode({"n": 1}))
    conn.send('{"n":2}')
    conn.send_frame(encode({"n": 3, "text": "莊" * 100}))
    assert transport.writes == []
    conn.uncork()
    assert len(transport.writes) == 1
    assert _messages(transport.writes[0]) == [
        b'{"n":1}',
        b'{"n":2}',
        ('{"n":3,"text":"' + "莊" * 100 + '"}').encode(),
    ]
    # Uncorked, each message is its own write again.
    conn.send('{"n":4}')
    conn.send('{"n":5}')
    assert len(transport.writes) == 3
    await conn.finish()


async def test_a_client_behind_gets_the_corked_messages_queued_in_order() -> None:
    transport = Transport()
    conn = _connection(transport)
    transport.backlog = 1  # the socket has not taken earlier bytes yet
    conn.cork()
    for n in range(3):
        conn.send(f'{{"n":{n}}}')
    conn.uncork()
    assert transport.writes == []
    queued: list[Any] = []
    while conn._queue:
        queued.append(conn._queue.popleft())
    assert queued == ['{"n":0}', '{"n":1}', '{"n":2}']
    await asyncio.sleep(0)
    await conn.finish()


async def test_a_client_that_keeps_up_never_gets_a_queue_and_one_behind_drains_it() -> None:
    transport = Transport()
    conn = _connection(transport)
    for n in range(50):
        conn.send(f'{{"n":{n}}}')
    assert len(transport.writes) == 50
    assert conn._queue is None  # every frame went straight out: no memory for a backlog
    transport.backlog = 1
    conn.send('{"n":50}')
    conn.send('{"n":51}')
    assert len(transport.writes) == 50
    transport.backlog = 0
    for _ in range(3):
        await asyncio.sleep(0)
    assert [_messages(w) for w in transport.writes[50:]] == [[b'{"n":50}'], [b'{"n":51}']]
    await conn.finish()


async def test_the_heartbeat_pings_a_quiet_client_drops_a_silent_one_and_spares_a_full_one() -> (
    None
):
    closed: list[int] = []

    async def close(code: int, message: bytes) -> None:
        closed.append(code)

    quiet, backed_up = Transport(), Transport()
    conns = []
    for transport in (quiet, backed_up):
        ws = cast(web.WebSocketResponse, SimpleNamespace(compress=False, close=close))
        request = cast(web.Request, SimpleNamespace(transport=transport))
        conn = Connection(ws, request, user_id=1, queue_limit=8)
        conn.start()
        conns.append(conn)
    silent, full = conns
    # Behind and over half its queue: the reader waits, so the client's pong waits unread.
    backed_up.backlog = 1
    for n in range(5):
        full.send(f'{{"n":{n}}}')
    for conn in conns:
        conn.beat()  # new: heard
    assert quiet.writes == []
    for conn in conns:
        conn.beat()
    assert quiet.writes == [b"\x89\x00"]  # a ping
    for conn in conns:
        conn.beat()
    await silent.wait_closed()
    assert silent.closed and closed == [1001]
    assert not full.closed
    await full.finish()


async def test_watchers_holding_the_same_frames_share_one_write() -> None:
    from baccarat.server.sockets.hub import Hub

    hub = Hub()
    transports = [Transport() for _ in range(3)]
    conns = [_connection(t) for t in transports]
    for conn in conns:
        hub.watch(conn, "t1")
    with hub.corked("t1"):
        hub.to_table("t1", {"n": 1})
        hub.to_table("t1", {"n": 2})
        conns[2].send_frame(encode({"own": True}))
    first, second, third = (t.writes for t in transports)
    assert len(first) == len(second) == len(third) == 1
    # The same bytes, built once for the two clients that held the same frames.
    assert first[0] is second[0]
    assert _messages(first[0]) == [b'{"n":1}', b'{"n":2}']
    assert _messages(third[0]) == [b'{"n":1}', b'{"n":2}', b'{"own":true}']
