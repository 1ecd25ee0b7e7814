"""The load generator's clients: one picows connection per seat, acting like a person.

Each full table has a dealer, seven bettors and a spectator. A bettor places 2 to 4 chips on
Player or Banker at moments spread over the first 60% of each betting window; whoever
controls a face-down card peels it (a hand that moves about 15 times a second) for 2 to 4
seconds, then opens it. Two client models:

- ``minimal``: what the protocol needs and nothing else (no lobby once seated, no snapshots
  asked for); it sends every move of the hand, 15 a second;
- ``auto-open``: the browser with 自動開牌 on (the players' own preference): controllers open
  their cards at once, so no peel moves at all;
- ``browser``: what the shipped browser client (``baccarat/web/js``) does: it subscribes to
  the lobby when the lobby shows and unsubscribes when it enters a table
  (``lobbycontrol.js``, ``tablecontrol.js``), applies every event to its view (``store.js``)
  and asks for a snapshot (``resync``, 40 ms debounce) only after a gap in ``seq``; it sends
  no more peel moves a second than the hello's ``squeeze_rate`` (``squeeze.js``), the rate
  the server passes them on at.

Frames are classified from their first bytes (the server writes ``type`` first and an
event's name before its data), so most frames are never parsed; the few the clients act on
are.
"""

from __future__ import annotations

import asyncio
import json
import random
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from picows import WSCloseCode, WSFrame, WSListener, WSMsgType, WSTransport, ws_connect

from baccarat.bets import Area
from baccarat.loadtest import MODELS
from baccarat.loadtest.accounts import Crew, Member
from baccarat.loadtest.stats import Tally
from baccarat.protocol import codec
from baccarat.protocol.encode import frame
from baccarat.protocol.ids import TableId
from baccarat.protocol.requests import (
    LobbySubscribe,
    LobbyUnsubscribe,
    Request,
    Resync,
    TakeSeat,
    Watch,
)
from baccarat.rules import HANDS, Hand
from baccarat.table.commands import Command, OpenCard, PlaceChip, SqueezeProgress
from baccarat.table.squeeze import Corner

USER_HEADER = "X-Load-User"
"""Tells the bare server (``raw``) who the client is; the real server ignores it."""

_SEQ = re.compile(rb'"seq":(\d+),"(\w+)"')
"""A table frame's ``seq``, and whether it is private (which does not advance it)."""
BROWSER_UNSUBSCRIBES = True
"""Whether the browser (``lobbycontrol.js``) sends ``lobby.unsubscribe`` when it enters a table."""
RESYNC_DEBOUNCE = 0.04
SQUEEZE_RATE = 15.0
"""Moves a second of a controller's hand while it squeezes."""
CHIPS = (1, 2, 3, 5)
PARSED = frozenset({"betting_opened", "chip_placed", "squeeze_started", "seat_freed"})

_EVENT = b'{"type":"event"'
_ACK = b'{"type":"ack","id":'


def frame_kind(data: bytes) -> str:
    """A frame's type, or its event's name for a table event, read from its first bytes."""
    if data.startswith(_EVENT):
        i = data.find(b'"event":"', 15) + 9
        return data[i : data.find(b'"', i)].decode()
    if data.startswith(b'{"type":"'):
        return data[9 : data.find(b'"', 9)].decode()
    return "other"


@dataclass
class TableBets:
    """When each chip of the current round was sent, keyed as its ``chip_placed`` reads."""

    sent: dict[tuple[int, str, int], float] = field(default_factory=dict)


class Generator:
    """Every client of the run, their shared counters, and the loop they run on."""

    def __init__(self, url: str, model: str, tally: Tally, *, seed: int | None = None) -> None:
        if model not in MODELS:
            raise ValueError(f"unknown client model {model!r}")
        self.url = url.rstrip("/")
        self.ws_url = self.url.replace("http://", "ws://", 1) + "/ws"
        self.model = model
        self.browser = model != "minimal"
        """Whether the clients do what the browser client does (``browser``, ``auto-open``)."""
        self.tally = tally
        self.rng = random.Random(seed)
        self.clients: list[Client] = []
        self.loop = asyncio.get_running_loop()

    async def connect(
        self, crews: list[Crew], *, concurrency: int = 64, progress: Callable[[int], None]
    ) -> None:
        """Open one socket per member and wait for every hello."""
        gate = asyncio.Semaphore(concurrency)

        async def one(member: Member, bets: TableBets, table_id: str) -> None:
            async with gate:
                client = Client(self, member, table_id, bets)
                self.clients.append(client)
                await ws_connect(
                    lambda: client,
                    self.ws_url,
                    extra_headers=[
                        ("Authorization", f"Bearer {member.token}"),
                        (USER_HEADER, str(member.user_id)),
                    ],
                    websocket_handshake_timeout=60,
                )
                await client.hello
                progress(1)

        jobs = []
        for crew in crews:
            bets = TableBets()
            jobs += [one(m, bets, crew.table_id) for m in crew.members]
        await asyncio.gather(*jobs)

    async def seat(
        self,
        clients: list[Client],
        *,
        spread: float = 0.0,
        concurrency: int = 64,
        progress: Callable[[int], None],
    ) -> None:
        """Sit every dealer and bettor of ``clients``, make every spectator watch.

        The tables are seated one after another over ``spread`` seconds, so that their rounds
        do not all start at once (people do not arrive together either).
        """
        gate = asyncio.Semaphore(concurrency)
        tables = sorted({c.table_id for c in clients}, key=[c.table_id for c in clients].index)
        delay = {t: spread * i / max(1, len(tables)) for i, t in enumerate(tables)}

        async def one(client: Client) -> None:
            await asyncio.sleep(delay[client.table_id])
            async with gate:
                try:
                    await client.take_place()
                except (RuntimeError, ConnectionError) as exc:
                    # Refused (the code is counted with the errors) or gone: the run goes on.
                    self.tally.errors[f"take_place:{exc}"] += 1
                progress(1)

        await asyncio.gather(*(one(c) for c in clients))

    def close(self) -> None:
        """Close every socket."""
        for client in self.clients:
            client.close()


class Client(WSListener):
    """One member's socket and behaviour."""

    def __init__(self, gen: Generator, member: Member, table_id: str, bets: TableBets) -> None:
        self.gen = gen
        self.tally = gen.tally
        self.member = member
        self.user_id = member.user_id
        self.table_id = table_id
        self.bets = bets
        self.transport: WSTransport | None = None
        self.hello: asyncio.Future[None] = gen.loop.create_future()
        self.pending: dict[int, tuple[float, asyncio.Future[None] | None]] = {}
        self.next_id = 0
        self.closing = False
        self.resync_at: asyncio.TimerHandle | None = None
        self.seq = 0
        self.slip: dict[str, int] = {}
        self.round_id = ""
        self.last_frame = 0.0
        """When the socket's last frame came (``perf_counter``)."""
        self.peel_rate = SQUEEZE_RATE
        """Peel moves sent a second (the browser's follows the hello's ``squeeze_rate``)."""

    # -- picows callbacks --------------------------------------------------------------

    def on_ws_connected(self, transport: WSTransport) -> None:
        self.transport = transport

    def on_ws_disconnected(self, transport: WSTransport) -> None:
        if not self.closing:
            self.tally.errors["connection_lost"] += 1
        self.closing = True
        if not self.hello.done():
            self.hello.set_exception(ConnectionError("the server closed the socket"))

    def on_ws_frame(self, transport: WSTransport, frame: WSFrame) -> None:
        if frame.msg_type != WSMsgType.TEXT:
            if frame.msg_type == WSMsgType.CLOSE:
                self._closed_by_server(transport, frame.get_close_code())
            return
        data = frame.get_payload_as_bytes()
        kind = frame_kind(data)
        now = time.perf_counter()
        self.tally.frame(kind, len(data), now - self.last_frame)
        self.last_frame = now
        self._on_text(kind, data)
        if self.gen.browser and (data.startswith(_EVENT) or kind == "snapshot"):
            self._follow_seq(kind, data)

    def _closed_by_server(self, transport: WSTransport, code: WSCloseCode) -> None:
        if not self.closing:
            self.tally.errors[f"closed:{code}"] += 1
            self.closing = True
            transport.send_close(code)
            transport.disconnect()

    def _on_text(self, kind: str, data: bytes) -> None:
        # Most frames are only counted: the few the clients act on are parsed here.
        if kind == "ack" or kind == "error":
            self._answer(kind, data)
        elif kind == "hello":
            self._hello(data)
        elif kind == "snapshot":
            self._snapshot(data)
        elif kind in PARSED:
            self._event(kind, json.loads(data)["data"])
        elif kind == "round_settled":
            self._round_settled()

    # -- commands ----------------------------------------------------------------------

    def command(self, command: Command | Request, *, wait: bool = False) -> asyncio.Future[None]:
        """Send a command, written by the protocol's encoder."""
        self.next_id += 1
        done: asyncio.Future[None] | None = self.gen.loop.create_future() if wait else None
        self.pending[self.next_id] = (time.perf_counter(), done)
        if self.transport is not None and not self.closing:
            self.transport.send(WSMsgType.TEXT, codec.dumps_bytes(frame(command, self.next_id)))
            if self.tally.measuring:
                self.tally.sent += 1
        elif done is not None:
            done.set_exception(ConnectionError("not connected"))
        return done if done is not None else self.gen.loop.create_future()

    async def take_place(self) -> None:
        """Subscribe to the lobby as the model does, then sit (or watch)."""
        if self.gen.browser:
            await self.command(LobbySubscribe(), wait=True)
        table_id = TableId(self.table_id)
        if self.member.seat is None:
            await self.command(Watch(table_id), wait=True)
        else:
            await self.command(TakeSeat(table_id, self.member.seat), wait=True)
        if self.gen.browser and BROWSER_UNSUBSCRIBES:
            await self.command(LobbyUnsubscribe(), wait=True)

    def close(self) -> None:
        """Close the socket (a normal close, not counted as an error)."""
        self.closing = True
        if self.resync_at is not None:
            self.resync_at.cancel()
        if self.transport is not None and not self.transport.is_disconnected:
            self.transport.send_close()
            self.transport.disconnect()

    def _answer(self, kind: str, data: bytes) -> None:
        if kind == "ack":
            end = data.find(b",", len(_ACK))
            if end < 0:
                end = data.find(b"}", len(_ACK))
            msg_id = int(data[len(_ACK) : end])
            code = None
        else:
            msg = json.loads(data)
            msg_id, code = msg.get("id"), str(msg.get("code"))
        entry = self.pending.pop(msg_id, None) if isinstance(msg_id, int) else None
        if code is not None:
            self.tally.errors[code] += 1
        if entry is None:
            return
        sent, done = entry
        if self.tally.measuring:
            self.tally.round_trip.append(time.perf_counter() - sent)
        if done is not None and not done.done():
            if code is None:
                done.set_result(None)
            else:
                done.set_exception(RuntimeError(code))

    # -- behaviour ---------------------------------------------------------------------

    def _hello(self, data: bytes) -> None:
        rate = json.loads(data).get("squeeze_rate")
        if self.gen.browser and isinstance(rate, int | float) and rate > 0:
            self.peel_rate = min(SQUEEZE_RATE, float(rate))
        if not self.hello.done():
            self.hello.set_result(None)

    def _snapshot(self, data: bytes) -> None:
        if self.member.role != "bettor" or self.round_id:
            return
        # Seated while betting is open: bet in what is left of the window, like a person.
        view = json.loads(data).get("view") or {}
        if view.get("phase") == "betting":
            self.round_id = str(view.get("round_id") or "")
            self._plan_bets(float(view.get("remaining_ms") or 0) / 1000)

    def _round_settled(self) -> None:
        # One spectator per table counts the table's rounds.
        if self.member.role == "spectator" and self.tally.measuring:
            self.tally.rounds += 1

    def _event(self, kind: str, data: dict[str, Any]) -> None:
        if kind == "chip_placed":
            self._chip_placed(data)
        elif kind == "betting_opened":
            self._betting_opened(data)
        elif kind == "squeeze_started":
            if data.get("controller_user_id") == self.user_id:
                self._peel(data["hand"], data.get("corner") or "br")
        elif kind == "seat_freed" and data.get("user_id") == self.user_id:
            self.tally.errors[f"seat_freed:{data.get('reason')}"] += 1

    def _chip_placed(self, data: dict[str, Any]) -> None:
        """Time another's chip from its sending to this socket (the delivery latency)."""
        if data["user_id"] == self.user_id or not self.tally.measuring:
            return
        sent = self.bets.sent.get((data["user_id"], data["area"], data["chips"]))
        if sent is not None:
            self.tally.delivery.append(time.perf_counter() - sent)

    def _betting_opened(self, data: dict[str, Any]) -> None:
        self.round_id = str(data.get("round_id", ""))
        if self.member.role == "dealer":
            # The table's record of sent chips is shared: its one dealer clears it.
            self.bets.sent.clear()
        elif self.member.role == "bettor":
            self._plan_bets(float(data.get("remaining_ms", 15000)) / 1000)

    def _plan_bets(self, window: float) -> None:
        rng = self.gen.rng
        self.slip = {}
        area = rng.choice(HANDS)
        if window < 1.0:
            return
        for _ in range(rng.randint(2, 4)):
            at = rng.uniform(0.3, window * 0.6)
            self.gen.loop.call_later(at, self._bet, area, rng.choice(CHIPS))

    def _bet(self, area: Area, chip: int) -> None:
        if self.closing:
            return
        chips = self.slip.get(area, 0) + chip
        self.slip[area] = chips
        self.bets.sent[(self.user_id, area, chips)] = time.perf_counter()
        self.command(PlaceChip(self.user_id, area, chip))

    def _peel(self, hand: Hand, corner: Corner) -> None:
        if self.gen.model == "auto-open":
            self.command(OpenCard(self.user_id, hand))
            return
        moves = max(1, round(self.gen.rng.uniform(2.0, 4.0) * self.peel_rate))
        step = 1 / self.peel_rate

        def move(i: int) -> None:
            if self.closing:
                return
            if i >= moves:
                self.command(OpenCard(self.user_id, hand))
                return
            progress = round(0.95 * (i + 1) / moves, 3)
            self.command(SqueezeProgress(self.user_id, hand, progress, corner))
            self.gen.loop.call_later(step, move, i + 1)

        self.gen.loop.call_later(step, move, 0)

    def _follow_seq(self, kind: str, data: bytes) -> None:
        # Like the browser (store.js): every event is applied to the view, and a snapshot is
        # asked for only when a public event skips a sequence number.
        found = _SEQ.search(data, 0, 120)
        if found is None or found.group(2) == b"private":
            return
        seq = int(found.group(1))
        if kind != "snapshot" and self.seq and seq > self.seq + 1:
            self._resync_soon()
        self.seq = max(self.seq, seq) if kind != "snapshot" else seq

    def _resync_soon(self) -> None:
        if self.resync_at is not None:
            self.resync_at.cancel()
        self.resync_at = self.gen.loop.call_later(RESYNC_DEBOUNCE, self._resync)

    def _resync(self) -> None:
        self.resync_at = None
        if not self.closing:
            self.command(Resync())
