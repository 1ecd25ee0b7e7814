"""The bare servers: the same frames sent by a bare WebSocket stack on uvloop, no game.

Two stacks (``--stack``): aiohttp, the project's, and picows, the cheapest measured here;
the load test runs both against the same clients, so each run shows both floors.

It speaks enough of the protocol for the load test's clients to play as they do against
the real server: it answers every command, sends a snapshot after ``sit``, ``table.watch``
and ``resync``, runs each table through the phases of a round on the default timers
(betting 15 s, two to four squeezes, result 5 s), turns every chip and peel move into an
event for the whole table, and pads each frame to the size the real server's frame of that
type had in the same run (``--sizes``). Each message is encoded once and written to every
socket of its audience (aiohttp's ``send_str``, picows' ``send``): no queue, no
projection, no ledger. What it costs per delivery is the floor the project's cost per
delivery is compared with. A command's answers are worked out first (``Deliveries``) and
then sent the stack's way: picows sends from its frame callback, aiohttp awaits each send.

    python -m baccarat.loadtest.raw --port 0 --stack picows --sizes '{"chip_placed": 190}'
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import random
import signal
from collections.abc import Awaitable, Iterable
from dataclasses import dataclass
from typing import Any, Protocol

import picows
from aiohttp import WSMsgType, web

from baccarat.loadtest.clients import USER_HEADER

BETTING, SQUEEZE, RESULT = 15.0, 10.0, 5.0
# The server's default (squeeze_rate 10), copied: the floor must not import what it measures.
SQUEEZE_INTERVAL = 0.1


STACKS = ("aiohttp", "picows")


def _dumps(message: dict[str, Any]) -> str:
    return json.dumps(message, separators=(",", ":"))


class Peer(Protocol):
    """One client's socket, on either stack."""

    @property
    def closed(self) -> bool: ...

    def send_text(self, text: str) -> Awaitable[None] | None:
        """Send one frame: None when sent at once (picows), else what to await (aiohttp)."""
        ...


Deliveries = list[tuple[Iterable[Peer], str]]
"""Frames to send, each with its audience."""


class Frames:
    """Builds frames padded to the sizes measured on the real server."""

    def __init__(self, sizes: dict[str, int]) -> None:
        self.sizes = sizes

    def pad(self, kind: str, message: dict[str, Any], inner: dict[str, Any]) -> str:
        text = _dumps(message)
        short = self.sizes.get(kind, len(text)) - len(text) - 9  # 9 = len(',"pad":""')
        if short > 0:
            inner["pad"] = "x" * short
            text = _dumps(message)
        return text

    def event(self, table_id: str, seq: int, kind: str, data: dict[str, Any]) -> str:
        msg = {"type": "event", "table_id": table_id, "seq": seq, "event": kind, "data": data}
        return self.pad(kind, msg, data)

    def plain(self, kind: str, **fields: Any) -> str:
        msg: dict[str, Any] = {"type": kind, **fields}
        return self.pad(kind, msg, msg)


class RawTable:
    """A table's sockets and a round loop that sends the real server's kinds of events."""

    def __init__(self, server: RawServer, table_id: str) -> None:
        self.server = server
        self.table_id = table_id
        self.sockets: set[Peer] = set()
        self.seats: dict[int, int] = {}
        self.seq = 0
        self.round_id = ""
        self.slips: dict[int, dict[str, int]] = {}
        self.squeezing: tuple[str, int] | None = None
        self.opened = asyncio.Event()
        self.peel: dict[str, Any] | None = None
        self.peel_sent = 0.0
        self.peel_timer: asyncio.TimerHandle | None = None
        self.task: asyncio.Task[None] | None = None
        self.rng = random.Random(table_id)
        self.phase = "waiting"
        self.deadline = 0.0

    def snapshot(self) -> str:
        """The table as a snapshot: the phase and time left are what a client acts on."""
        left = max(0, round((self.deadline - asyncio.get_running_loop().time()) * 1000))
        view = {"phase": self.phase, "round_id": self.round_id, "remaining_ms": left}
        return self.server.frames.plain("snapshot", table_id=self.table_id, view=view)

    def event(self, kind: str, data: dict[str, Any]) -> tuple[Iterable[Peer], str]:
        """The next event of the table, with its audience (every socket at the table)."""
        self.seq += 1
        return self.sockets, self.server.frames.event(self.table_id, self.seq, kind, data)

    async def send(self, kind: str, data: dict[str, Any]) -> None:
        await _send_all(*self.event(kind, data))

    def peel_move(self, data: dict[str, Any]) -> None:
        """Coalesce peel moves as the real server does: the latest wins, at most one per
        ``squeeze_interval``."""
        self.peel = data
        if self.peel_timer is None:
            loop = asyncio.get_running_loop()
            wait = max(0.0, self.peel_sent + self.server.squeeze_interval - loop.time())
            self.peel_timer = loop.call_later(wait, self._flush_peel)

    def _flush_peel(self) -> None:
        self.peel_timer = None
        if self.peel is not None and self.squeezing is not None:
            self.peel_sent = asyncio.get_running_loop().time()
            data, self.peel = self.peel, None
            self.seq += 1
            text = self.server.frames.event(self.table_id, self.seq, "squeeze_progress", data)
            task = asyncio.create_task(_send_all(self.sockets, text))
            _BACKGROUND.add(task)
            task.add_done_callback(_BACKGROUND.discard)

    def sat(self) -> None:
        if self.task is None and 0 in self.seats and len(self.seats) > 1:
            self.task = asyncio.create_task(self._rounds())

    async def _rounds(self) -> None:
        n = 0
        while True:
            n += 1
            await self._betting(n)
            controller = await self._close_betting()
            await self._deal()
            await self._squeezes(controller)
            self.phase = "result"
            await _send(self.server.lobby_line(self))
            await self.send("round_settled", {"round_id": self.round_id})
            await asyncio.sleep(RESULT)

    async def _betting(self, n: int) -> None:
        self.round_id = f"{self.table_id}-r{n}"
        self.slips = {}
        self.phase = "betting"
        self.deadline = asyncio.get_running_loop().time() + BETTING
        await _send(self.server.lobby_line(self))
        await self.send(
            "betting_opened",
            {"round_id": self.round_id, "round_no": n, "remaining_ms": BETTING * 1000},
        )
        await asyncio.sleep(BETTING)

    async def _close_betting(self) -> int:
        """Close betting and name who squeezes: the lowest-id bettor, else a seated user."""
        bets = [
            {"user_id": u, "area": a, "chips": c}
            for u, s in self.slips.items()
            for a, c in s.items()
        ]
        self.phase = "squeeze"
        await self.send("betting_closed", {"round_id": self.round_id, "bets": bets})
        bettors = sorted(self.slips) or [u for s, u in self.seats.items() if s > 0]
        controller = bettors[0] if bettors else 0
        await self.send("controllers", {"round_id": self.round_id, "player": controller})
        await _send(self.server.lobby_line(self))
        return controller

    async def _deal(self) -> None:
        for i, hand in enumerate(("player", "banker", "player", "banker")):
            await self.send(
                "card_dealt", {"round_id": self.round_id, "hand": hand, "position": i // 2}
            )

    async def _squeezes(self, controller: int) -> None:
        """Squeeze a card of each hand, then at random a third for the Player, or for both."""
        squeezes = 2 + (self.rng.random() < 0.5) + (self.rng.random() < 0.4)
        for i in range(squeezes):
            hand = ("player", "banker")[i % 2]
            if i >= 2:
                await self.send(
                    "card_dealt", {"round_id": self.round_id, "hand": hand, "position": 2}
                )
            await self._squeeze(hand, controller)

    async def _squeeze(self, hand: str, controller: int) -> None:
        self.squeezing = (hand, controller)
        self.opened.clear()
        await self.send(
            "squeeze_started",
            {
                "round_id": self.round_id,
                "hand": hand,
                "controller_user_id": controller,
                "remaining_ms": SQUEEZE * 1000,
            },
        )
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.opened.wait(), SQUEEZE)
        self.squeezing = None
        await self.send("card_opened", {"round_id": self.round_id, "hand": hand})


@dataclass(slots=True)
class _Client:
    """One socket, the user it says it is, and the table it sits or watches at."""

    ws: Peer
    user_id: int
    table: RawTable | None = None


class _AiohttpPeer:
    """An aiohttp socket as a ``Peer``."""

    __slots__ = ("ws",)

    def __init__(self, ws: web.WebSocketResponse) -> None:
        self.ws = ws

    @property
    def closed(self) -> bool:
        return self.ws.closed

    def send_text(self, text: str) -> Awaitable[None]:
        return self.ws.send_str(text)


class _PicowsPeer(picows.WSListener):
    """A picows socket: the ``Peer`` and its listener in one."""

    def __init__(self, server: RawServer, user_id: int) -> None:
        self.server = server
        self.client = _Client(self, user_id)
        self.transport: picows.WSTransport | None = None

    @property
    def closed(self) -> bool:
        return self.transport is None

    def send_text(self, text: str) -> None:
        if self.transport is not None:
            self.transport.send(picows.WSMsgType.TEXT, text.encode())

    def on_ws_connected(self, transport: picows.WSTransport) -> None:
        self.transport = transport
        _send_now(self.server.hello(self.client))

    def on_ws_frame(self, transport: picows.WSTransport, frame: picows.WSFrame) -> None:
        if frame.msg_type == picows.WSMsgType.TEXT:
            _send_now(self.server.command(self.client, json.loads(frame.get_payload_as_bytes())))
        elif frame.msg_type == picows.WSMsgType.CLOSE:
            transport.send_close(frame.get_close_code())
            transport.disconnect()

    def on_ws_disconnected(self, transport: picows.WSTransport) -> None:
        self.transport = None
        self.server.left(self.client)


class RawServer:
    """Tables by id, lobby subscribers, and the command handlers."""

    def __init__(self, sizes: dict[str, int], squeeze_interval: float = SQUEEZE_INTERVAL) -> None:
        self.frames = Frames(sizes)
        self.squeeze_interval = squeeze_interval
        self.tables: dict[str, RawTable] = {}
        self.lobby: set[Peer] = set()
        self.users = 0

    def table(self, table_id: str) -> RawTable:
        if table_id not in self.tables:
            self.tables[table_id] = RawTable(self, table_id)
        return self.tables[table_id]

    def lobby_line(self, table: RawTable) -> Deliveries:
        """A table's line changed (phase or seats): every lobby subscriber hears it."""
        if not self.lobby:
            return []
        return [(self.lobby, self.frames.plain("lobby.table", table={"table_id": table.table_id}))]

    def user_id(self, said: str | None) -> int:
        """No accounts here: the load test's clients say who they are."""
        self.users += 1
        return int(said) if said is not None else -self.users

    def hello(self, client: _Client) -> Deliveries:
        rate = round(1 / self.squeeze_interval, 3)
        hello = self.frames.plain(
            "hello", v=1, user={"id": client.user_id}, seat=None, squeeze_rate=rate
        )
        return [((client.ws,), hello)]

    def left(self, client: _Client) -> None:
        self.lobby.discard(client.ws)
        if client.table is not None:
            client.table.sockets.discard(client.ws)

    async def handle(self, request: web.Request) -> web.WebSocketResponse:
        """The aiohttp endpoint."""
        ws = web.WebSocketResponse(max_msg_size=16384)
        await ws.prepare(request)
        client = _Client(_AiohttpPeer(ws), self.user_id(request.headers.get(USER_HEADER)))
        await _send(self.hello(client))
        try:
            async for msg in ws:
                if msg.type == WSMsgType.TEXT:
                    await _send(self.command(client, json.loads(msg.data)))
        finally:
            self.left(client)
        return ws

    def listener(self, request: picows.WSUpgradeRequest) -> picows.WSListener:
        """The picows endpoint: one listener per socket."""
        said = request.headers.get(USER_HEADER)
        return _PicowsPeer(self, self.user_id(None if said is None else str(said)))

    def command(self, client: _Client, cmd: dict[str, Any]) -> Deliveries:
        kind = str(cmd.get("type"))
        out: Deliveries = [((client.ws,), _dumps({"type": "ack", "id": cmd.get("id")}))]
        if kind in ("sit", "table.watch"):
            out += self._join(client, kind, cmd)
        elif kind == "resync" and client.table is not None:
            out.append(((client.ws,), client.table.snapshot()))
        elif kind == "lobby.subscribe":
            self.lobby.add(client.ws)
            out.append(((client.ws,), self.frames.plain("lobby", tables=[])))
        elif kind == "lobby.unsubscribe":
            self.lobby.discard(client.ws)
        elif client.table is not None:
            out += self._play(client.table, client.user_id, kind, cmd)
        return out

    def _join(self, client: _Client, kind: str, cmd: dict[str, Any]) -> Deliveries:
        """Sit or watch: the socket hears the table from now on, starting with a snapshot."""
        table = client.table = self.table(str(cmd["table_id"]))
        table.sockets.add(client.ws)
        out: Deliveries = []
        if kind == "sit":
            table.seats[int(cmd["seat"])] = client.user_id
            table.sat()
            out += self.lobby_line(table)
        out.append(((client.ws,), table.snapshot()))
        return out

    def _play(self, table: RawTable, user_id: int, kind: str, cmd: dict[str, Any]) -> Deliveries:
        if kind == "bet":
            slip = table.slips.setdefault(user_id, {})
            area = str(cmd["area"])
            slip[area] = slip.get(area, 0) + int(cmd["chip"])
            data = {
                "round_id": table.round_id,
                "user_id": user_id,
                "area": area,
                "chip": cmd["chip"],
                "chips": slip[area],
            }
            return [table.event("chip_placed", data)]
        if kind == "squeeze" and table.squeezing is not None:
            table.peel_move(
                {"hand": cmd["hand"], "progress": cmd["progress"], "corner": cmd["corner"]}
            )
        elif kind == "open" and table.squeezing is not None:
            table.opened.set()
        return []


_BACKGROUND: set[asyncio.Task[None]] = set()


async def _send_all(peers: Iterable[Peer], text: str) -> None:
    for peer in list(peers):
        if not peer.closed:
            with contextlib.suppress(ConnectionError, RuntimeError):
                sent = peer.send_text(text)
                if sent is not None:
                    await sent


async def _send(deliveries: Deliveries) -> None:
    for peers, text in deliveries:
        await _send_all(peers, text)


def _send_now(deliveries: Deliveries) -> None:
    """Send from a picows callback: every peer there sends at once."""
    for peers, text in deliveries:
        for peer in list(peers):
            if not peer.closed:
                peer.send_text(text)


async def serve(
    port: int, sizes: dict[str, int], squeeze_rate: float = 10.0, stack: str = "aiohttp"
) -> None:
    """Serve on ``stack`` until SIGTERM or SIGINT."""
    server = RawServer(sizes, 1 / squeeze_rate)
    runner: web.AppRunner | None = None
    listening: asyncio.Server | None = None
    if stack == "picows":
        listening = await picows.ws_create_server(
            server.listener, "127.0.0.1", port, max_frame_size=16384
        )
        bound = listening.sockets[0].getsockname()[1]
    else:
        app = web.Application()
        app.router.add_get("/ws", server.handle)
        runner = web.AppRunner(app, access_log=None)
        await runner.setup()
        await web.TCPSite(runner, "127.0.0.1", port).start()
        bound = next(a for a in runner.addresses if isinstance(a, tuple))[1]
    print(f"listening: http://127.0.0.1:{bound}", flush=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    for table in server.tables.values():
        if table.task is not None:
            table.task.cancel()
    if runner is not None:
        await runner.cleanup()
    if listening is not None:
        listening.close()


def main() -> None:
    """``python -m baccarat.loadtest.raw``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--sizes", default="{}", help="JSON: bytes of each frame type")
    parser.add_argument("--squeeze-rate", type=float, default=10.0, help="peel moves a second")
    parser.add_argument("--stack", choices=STACKS, default="aiohttp", help="the WebSocket stack")
    args = parser.parse_args()
    with contextlib.suppress(ImportError):
        import uvloop

        asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())
    sizes = {str(k): int(v) for k, v in json.loads(args.sizes).items()}
    asyncio.run(serve(args.port, sizes, args.squeeze_rate, args.stack))


if __name__ == "__main__":
    main()
