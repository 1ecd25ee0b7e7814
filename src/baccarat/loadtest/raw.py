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
import signal
from collections.abc import Awaitable
from dataclasses import dataclass
from typing import Any

import picows
from aiohttp import WSMsgType, web

from baccarat.loadtest.clients import USER_HEADER
from baccarat.loadtest.rawtable import Deliveries, Frames, Peer, RawTable, dumps, send, send_now

# The server's default (squeeze_rate 10), copied: the floor must not import what it measures.
SQUEEZE_INTERVAL = 0.1


STACKS = ("aiohttp", "picows")


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
        send_now(self.server.hello(self.client))

    def on_ws_frame(self, transport: picows.WSTransport, frame: picows.WSFrame) -> None:
        if frame.msg_type == picows.WSMsgType.TEXT:
            send_now(self.server.command(self.client, json.loads(frame.get_payload_as_bytes())))
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
        await send(self.hello(client))
        try:
            async for msg in ws:
                if msg.type == WSMsgType.TEXT:
                    await send(self.command(client, json.loads(msg.data)))
        finally:
            self.left(client)
        return ws

    def listener(self, request: picows.WSUpgradeRequest) -> picows.WSListener:
        """The picows endpoint: one listener per socket."""
        said = request.headers.get(USER_HEADER)
        return _PicowsPeer(self, self.user_id(None if said is None else str(said)))

    def command(self, client: _Client, cmd: dict[str, Any]) -> Deliveries:
        kind = str(cmd.get("type"))
        out: Deliveries = [((client.ws,), dumps({"type": "ack", "id": cmd.get("id")}))]
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
