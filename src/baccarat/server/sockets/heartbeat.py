"""The sockets' heartbeat: one task pings the quiet sockets and drops those that stay silent.

aiohttp can keep a heartbeat per socket, with timers of its own on every socket (about
1.5 KB each) and a timer reset on every frame read. Here one sweep every ``interval``
seconds looks at every connection (``Connection.beat``): one that sent nothing since the last
sweep gets a ping; one that was pinged and sent nothing since, not even the pong, is dropped
(``no_pong``). A client that falls silent is dropped two to three intervals later; a quiet
client that answers is pinged every other sweep.
"""

from __future__ import annotations

import asyncio

from baccarat.server.sockets.connection import Connection
from baccarat.server.sockets.hub import Hub

INTERVAL = 15.0
"""Seconds between two sweeps: a dead client is dropped 30 to 45 s after its last frame."""

SLICE = 500
"""Connections looked at in one turn of the loop: a sweep of 9,000 sockets at once held the
loop for 30 ms, and the frames of every table waited behind it."""


class Heartbeat:
    """Pings quiet sockets and drops silent ones, for every connection of a hub."""

    def __init__(self, hub: Hub, interval: float = INTERVAL) -> None:
        self.hub = hub
        self.interval = interval

    async def run(self) -> None:
        """Sweep every ``interval`` seconds until cancelled."""
        while True:
            await asyncio.sleep(self.interval)
            conns = list(self.hub.connections)
            for start in range(0, len(conns), SLICE):
                if start:
                    await asyncio.sleep(0)
                self._look(conns[start : start + SLICE])

    @staticmethod
    def _look(conns: list[Connection]) -> None:
        """The sweep's look at some of the connections."""
        for conn in conns:
            conn.beat()
