"""The bare servers' tables: sockets, frames padded to the real server's sizes, and a round
loop that sends the real server's kinds of events on the default timers (see ``raw``)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
from collections.abc import Awaitable, Iterable
from typing import Any, Protocol

BETTING, SQUEEZE, RESULT = 15.0, 10.0, 5.0


def dumps(message: dict[str, Any]) -> str:
    """Compact JSON, as the real server writes its frames."""
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
        text = dumps(message)
        short = self.sizes.get(kind, len(text)) - len(text) - 9  # 9 = len(',"pad":""')
        if short > 0:
            inner["pad"] = "x" * short
            text = dumps(message)
        return text

    def event(self, table_id: str, seq: int, kind: str, data: dict[str, Any]) -> str:
        msg = {"type": "event", "table_id": table_id, "seq": seq, "event": kind, "data": data}
        return self.pad(kind, msg, data)

    def plain(self, kind: str, **fields: Any) -> str:
        msg: dict[str, Any] = {"type": kind, **fields}
        return self.pad(kind, msg, msg)


class Host(Protocol):
    """What a table reads of its bare server (``raw.RawServer``)."""

    @property
    def frames(self) -> Frames: ...

    @property
    def squeeze_interval(self) -> float: ...

    def lobby_line(self, table: RawTable) -> Deliveries: ...


class RawTable:
    """A table's sockets and a round loop that sends the real server's kinds of events."""

    def __init__(self, server: Host, table_id: str) -> None:
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
        await send_all(*self.event(kind, data))

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
            task = asyncio.create_task(send_all(self.sockets, text))
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
            await send(self.server.lobby_line(self))
            await self.send("round_settled", {"round_id": self.round_id})
            await asyncio.sleep(RESULT)

    async def _betting(self, n: int) -> None:
        self.round_id = f"{self.table_id}-r{n}"
        self.slips = {}
        self.phase = "betting"
        self.deadline = asyncio.get_running_loop().time() + BETTING
        await send(self.server.lobby_line(self))
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
        await send(self.server.lobby_line(self))
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


_BACKGROUND: set[asyncio.Task[None]] = set()


async def send_all(peers: Iterable[Peer], text: str) -> None:
    for peer in list(peers):
        if not peer.closed:
            with contextlib.suppress(ConnectionError, RuntimeError):
                sent = peer.send_text(text)
                if sent is not None:
                    await sent


async def send(deliveries: Deliveries) -> None:
    for peers, text in deliveries:
        await send_all(peers, text)


def send_now(deliveries: Deliveries) -> None:
    """Send from a picows callback: every peer there sends at once."""
    for peers, text in deliveries:
        for peer in list(peers):
            if not peer.closed:
                peer.send_text(text)
