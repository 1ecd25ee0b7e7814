"""Connections: a seat survives a reconnect within the grace; a slow client is cut off."""

from __future__ import annotations

import asyncio
import base64
import json
import os
import socket
import struct
from urllib.parse import urlsplit

from server_live import SLOW_SQUEEZE, Live, auto_open, is_event, live_test

from baccarat.client import Client, CommandError


@live_test()
async def test_a_reconnect_mid_round_finds_the_seat_bets_and_round(live: Live) -> None:
    dealer = await live.client("dealer", 1_000_000)
    bob = await live.client("bob")
    alice_user, token = await live.user("alice")
    alice = await Client.connect(live.base, token)
    await dealer.sit("t1", 0)
    await bob.sit("t1", 2)
    await alice.sit("t1", 1)
    auto_open(bob)
    opened = await bob.wait_for(is_event("betting_opened"), 10)
    round_id = opened["data"]["round_id"]
    await alice.bet("player", 5)
    await bob.bet("banker", 2)
    await alice.close()
    gone = await dealer.wait_for(is_event("disconnected"), 10)
    assert gone["data"]["user_id"] == alice_user.user_id

    again = await Client.connect(live.base, token)
    assert again.hello["seat"] == {"table_id": "t1", "seat": 1}
    # A seated user's new connection gets the table's snapshot without asking.
    view = await again.wait_view()
    assert again.table_id == "t1"
    assert view["me"]["seat"] == 1
    if view["round_id"] == round_id:
        assert view["seats"][1]["bets"] == {"player": 5}
    back = await dealer.wait_for(is_event("reconnected"), 10)
    assert back["data"]["user_id"] == alice_user.user_id
    settled = await dealer.wait_for(
        lambda m: is_event("round_settled")(m) and m["data"]["round_id"] == round_id, 20
    )
    assert str(alice_user.user_id) in settled["data"]["settlement"]["deltas"]
    bets = {(b["user_id"], b["area"]): b["chips"] for b in settled["data"]["bets"]}
    assert bets[(alice_user.user_id, "player")] == 5
    assert live.store.audit().ok
    for c in (dealer, bob, again):
        await c.close()


@live_test()
async def test_after_the_grace_the_seat_is_freed(live: Live) -> None:
    dealer = await live.client("dealer", 1_000_000)
    alice = await live.client("alice")
    await dealer.sit("t1", 0)
    await alice.sit("t1", 4)
    await alice.close()
    freed = await dealer.wait_for(
        lambda m: is_event("seat_freed")(m) and m["data"]["reason"] == "disconnected", 20
    )
    assert freed["data"]["seat"] == 4
    assert alice.user_id not in live.server.seating.seats
    await dealer.close()


def _frame(message: dict[str, object]) -> bytes:
    """One masked client text frame (RFC 6455 section 5.3)."""
    payload = json.dumps(message).encode()
    mask = os.urandom(4)
    masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
    assert len(payload) < 126
    return struct.pack("!BB", 0x81, 0x80 | len(payload)) + mask + masked


async def _stuck_socket(base: str, token: str) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """A WebSocket that completes its handshake and then never reads again."""
    url = urlsplit(base)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.setblocking(False)
    await asyncio.get_running_loop().sock_connect(sock, (url.hostname, url.port))
    reader, writer = await asyncio.open_connection(sock=sock)
    key = base64.b64encode(os.urandom(16)).decode()
    writer.write(
        (
            f"GET /ws HTTP/1.1\r\nHost: {url.netloc}\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
            f"Sec-WebSocket-Version: 13\r\nAuthorization: Bearer {token}\r\n\r\n"
        ).encode()
    )
    head = await reader.readuntil(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 101")
    return reader, writer


@live_test(queue_limit=64, command_rate=10_000)
async def test_a_client_that_stops_reading_is_dropped_and_the_table_plays_on(live: Live) -> None:
    dealer = await live.client("dealer", 1_000_000, record=True)
    alice = await live.client("alice", record=True)
    auto_open(alice)
    await dealer.sit("t1", 0)
    await alice.sit("t1", 1)
    stuck_user, token = await live.user("stuck")
    _, writer = await _stuck_socket(live.base, token)
    writer.write(_frame({"type": "table.watch", "id": 0, "table_id": "t1"}))
    for i in range(1, 3001):
        # Each answer is a whole snapshot: far more than the socket buffers hold.
        writer.write(_frame({"type": "resync", "id": i}))
        if i % 200 == 0:
            await writer.drain()
    rounds = 0
    while rounds < 3 or live.server.hub.online(stuck_user.user_id):
        await alice.wait_for(is_event("betting_opened"), 30)
        await alice.bet("player", 1)
        await alice.wait_for(is_event("round_settled"), 30)
        rounds += 1
    assert not live.server.hub.online(stuck_user.user_id)
    metrics = live.server.metrics.render().decode()
    assert 'baccarat_clients_dropped_total{reason="too_slow"} 1.0' in metrics
    # The others lost nothing: their public events arrive without a gap.
    for c in (dealer, alice):
        seqs = [f["seq"] for f in c.frames if f.get("type") == "event" and not f.get("private")]
        assert seqs == list(range(seqs[0], seqs[0] + len(seqs)))
    writer.close()
    await dealer.close()
    await alice.close()


@live_test(command_rate=5)
async def test_a_client_sending_too_fast_is_refused_with_rate_limited(live: Live) -> None:
    alice = await live.client("alice")
    codes = []
    for _ in range(15):
        try:
            await alice.ping()
            codes.append("ack")
        except CommandError as exc:
            codes.append(exc.code)
    # The burst (2 seconds' worth) passes, then the budget is spent.
    assert codes[:10] == ["ack"] * 10
    assert "rate_limited" in codes[10:]
    await alice.close()


@live_test(rooms=SLOW_SQUEEZE, shutdown_grace=5.0)
async def test_a_planned_stop_finishes_the_round_in_play_and_voids_nothing(live: Live) -> None:
    dealer = await live.client("dealer", 1_000_000)
    alice = await live.client("alice", 100_000)
    bob = await live.client("bob", 100_000)
    await dealer.sit("t1", 0)
    await alice.sit("t1", 1)
    await bob.watch("t1")
    bob.record = True
    await alice.wait_for(is_event("betting_opened"), 10)
    await alice.bet("banker", 10)
    # Alice holds the Banker card unopened (a long squeeze): the round is in escrow.
    await alice.wait_for(is_event("squeeze_started"), 10)
    assert live.store.balance(alice.user_id) == 100_000 - 1_000
    await live.server.drain()
    # Every screen was told, the cards opened at once, and the round settled.
    closing = await bob.wait_for(is_event("table_closing"), 5)
    assert closing["data"] == {}
    settled = await bob.wait_for(is_event("round_settled"), 5)
    [mine] = [r for r in settled["data"]["results"] if r["user_id"] == alice.user_id]
    assert live.store.balance(alice.user_id) == 100_000 + mine["delta"]
    assert live.store.void_unfinished() == []
    report = live.store.audit()
    assert report.ok and report.voided == 0, report
    # No round started after it, and the screens were sent to find the table (4002).
    after = [m.get("event") for m in bob.frames]
    assert "betting_opened" not in after[after.index("table_closing") :]
    assert await bob.next_message(5) is None
    assert bob.close_code == 4002
    await dealer.close()
    await alice.close()
    await bob.close()
