"""The bare server: the same stack (aiohttp on uvloop) sending the same frames, no game.

It speaks enough of the protocol for the load test's clients to play as they do against
the real server: it answers every command, sends a snapshot after ``sit``, ``table.watch``
and ``resync``, runs each table through the phases of a round on the default timers
(betting 15 s, two to four squeezes, result 5 s), turns every chip and peel move into an
event for the whole table, and pads each frame to the size the real server's frame of that
type had in the same run (``--sizes``). Each message is encoded once and written to every
socket of its audience with ``send_str``: no queue, no projection, no ledger. What it costs
per delivery is the floor the project's cost per delivery is compared with.

    python -m baccarat.loadtest.raw --port 0 --sizes '{"chip_placed": 190}'
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import random
import signal
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from aiohttp import WSMsgType, web

from baccarat.loadtest.clients import USER_HEADER

BETTING, SQUEEZE, RESULT = 15.0, 10.0, 5.0
# The server's default (squeeze_rate 10), copied: the floor must not import what it measures.
SQUEEZE_INTERVAL = 0.1


def _dumps(message: dict[str, Any]) -> str:
    return json.dumps(message, separators=(",", ":"))


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
        self.sockets: set[web.WebSocketResponse] = set()
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

    async def send(self, kind: str, data: dict[str, Any]) -> None:
        self.seq += 1
        text = self.server.frames.event(self.table_id, self.seq, kind, data)
        await _send_all(self.sockets, text)

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
            await self.server.lobby_line(self)
            await self.send("round_settled", {"round_id": self.round_id})
            await asyncio.sleep(RESULT)

    async def _betting(self, n: int) -> None:
        self.round_id = f"{self.table_id}-r{n}"
        self.slips = {}
        self.phase = "betting"
        self.deadline = asyncio.get_running_loop().time() + BETTING
        await self.server.lobby_line(self)
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
        await self.server.lobby_line(self)
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

    ws: web.WebSocketResponse
    user_id: int
    table: RawTable | None = None


class RawServer:
    """Tables by id, lobby subscribers, and the command handlers."""

    def __init__(self, sizes: dict[str, int], squeeze_interval: float = SQUEEZE_INTERVAL) -> None:
        self.frames = Frames(sizes)
        self.squeeze_interval = squeeze_interval
        self.tables: dict[str, RawTable] = {}
        self.lobby: set[web.WebSocketResponse] = set()
        self.users = 0

    def table(self, table_id: str) -> RawTable:
        if table_id not in self.tables:
            self.tables[table_id] = RawTable(self, table_id)
        return self.tables[table_id]

    async def lobby_line(self, table: RawTable) -> None:
        """A table's line changed (phase or seats): every lobby subscriber hears it."""
        if self.lobby:
            text = self.frames.plain("lobby.table", table={"table_id": table.table_id})
            await _send_all(self.lobby, text)

    async def handle(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse(max_msg_size=16384)
        await ws.prepare(request)
        # No accounts here: the load test's clients say who they are.
        self.users += 1
        client = _Client(ws, int(request.headers.get(USER_HEADER, -self.users)))
        rate = round(1 / self.squeeze_interval, 3)
        hello = self.frames.plain(
            "hello", v=1, user={"id": client.user_id}, seat=None, squeeze_rate=rate
        )
        await ws.send_str(hello)
        try:
            async for msg in ws:
                if msg.type == WSMsgType.TEXT:
                    await self._command(client, json.loads(msg.data))
        finally:
            self.lobby.discard(ws)
            if client.table is not None:
                client.table.sockets.discard(ws)
        return ws

    async def _command(self, client: _Client, cmd: dict[str, Any]) -> None:
        kind = str(cmd.get("type"))
        await client.ws.send_str(_dumps({"type": "ack", "id": cmd.get("id")}))
        if kind in ("sit", "table.watch"):
            await self._join(client, kind, cmd)
        elif kind == "resync" and client.table is not None:
            await client.ws.send_str(client.table.snapshot())
        elif kind == "lobby.subscribe":
            self.lobby.add(client.ws)
            await client.ws.send_str(self.frames.plain("lobby", tables=[]))
        elif kind == "lobby.unsubscribe":
            self.lobby.discard(client.ws)
        elif client.table is not None:
            await self._play(client.table, client.user_id, kind, cmd)

    async def _join(self, client: _Client, kind: str, cmd: dict[str, Any]) -> None:
        """Sit or watch: the socket hears the table from now on, starting with a snapshot."""
        table = client.table = self.table(str(cmd["table_id"]))
        table.sockets.add(client.ws)
        if kind == "sit":
            table.seats[int(cmd["seat"])] = client.user_id
            table.sat()
            await self.lobby_line(table)
        await client.ws.send_str(table.snapshot())

    async def _play(self, table: RawTable, user_id: int, kind: str, cmd: dict[str, Any]) -> None:
        if kind == "bet":
            slip = table.slips.setdefault(user_id, {})
            area = str(cmd["area"])
            slip[area] = slip.get(area, 0) + int(cmd["chip"])
            await table.send(
                "chip_placed",
                {
                    "round_id": table.round_id,
                    "user_id": user_id,
                    "area": area,
                    "chip": cmd["chip"],
                    "chips": slip[area],
                },
            )
        elif kind == "squeeze" and table.squeezing is not None:
            table.peel_move(
                {"hand": cmd["hand"], "progress": cmd["progress"], "corner": cmd["corner"]}
            )
        elif kind == "open" and table.squeezing is not None:
            table.opened.set()


_BACKGROUND: set[asyncio.Task[None]] = set()


async def _send_all(sockets: Iterable[web.WebSocketResponse], text: str) -> None:
    for ws in list(sockets):
        if not ws.closed:
            with contextlib.suppress(ConnectionError, RuntimeError):
                await ws.send_str(text)


async def serve(port: int, sizes: dict[str, int], squeeze_rate: float = 10.0) -> None:
    """Serve until SIGTERM or SIGINT."""
    server = RawServer(sizes, 1 / squeeze_rate)
    app = web.Application()
    app.router.add_get("/ws", server.handle)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", port)
    await site.start()
    bound = next(a for a in runner.addresses if isinstance(a, tuple))
    print(f"listening: http://127.0.0.1:{bound[1]}", flush=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    for table in server.tables.values():
        if table.task is not None:
            table.task.cancel()
    await runner.cleanup()


def main() -> None:
    """``python -m baccarat.loadtest.raw``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--sizes", default="{}", help="JSON: bytes of each frame type")
    parser.add_argument("--squeeze-rate", type=float, default=10.0, help="peel moves a second")
    args = parser.parse_args()
    with contextlib.suppress(ImportError):
        import uvloop

        asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())
    sizes = {str(k): int(v) for k, v in json.loads(args.sizes).items()}
    asyncio.run(serve(args.port, sizes, args.squeeze_rate))


if __name__ == "__main__":
    main()
