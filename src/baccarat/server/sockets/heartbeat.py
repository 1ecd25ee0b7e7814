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

from baccarat.server.sockets.hub import Hub

INTERVAL = 15.0
"""Seconds between two sweeps: a dead client is dropped 30 to 45 s after its last frame."""


class Heartbeat:
    """Pings quiet sockets and drops silent ones, for every connection of a hub."""

    def __init__(self, hub: Hub, interval: float = INTERVAL) -> None:
        self.hub = hub
        self.interval = interval

    async def run(self) -> None:
        """Sweep every ``interval`` seconds until cancelled."""
        while True:
            await asyncio.sleep(self.interval)
            self.sweep()

    def sweep(self) -> None:
        """One look at every connection."""
        for conn in list(self.hub.connections):
            conn.beat()
