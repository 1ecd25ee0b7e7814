"""A node's health: whether it is alive, whether it is ready for clients, and how the parts it
shares with the other nodes (the database, the directory) answer.

Readiness is apart from liveness, and neither depends on a shared part, as in Kubernetes'
probes: a database or Redis outage is felt by every node at once, so a proxy that took out
each node whose database is away would leave the address with no node at all. Such an outage
is ``degraded`` here (and in the metrics), while the node serves the page, its static files,
and ``503 service_unavailable`` with ``Retry-After`` for what needs the part that is away.

The parts are probed in the background, each within ``TIMEOUT``, so a health request answers
at once from the last probe: it never waits on a database that does not answer.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

log = logging.getLogger("baccarat.server")

PERIOD = 1.0
"""Seconds between probes of the shared parts."""
TIMEOUT = 2.0
"""Seconds a probe may take before its part counts as away."""

Probe = Callable[[], Awaitable[object]]


@dataclass
class Part:
    """One shared part: how to probe it and what the last probe found."""

    name: str
    probe: Probe
    up: bool = True
    since: float = field(default_factory=time.time)
    """When ``up`` last changed (Unix time)."""
    _pending: asyncio.Future[object] | None = None

    async def check(self) -> None:
        """Probe once and note the answer; a change is logged (a warning when it goes)."""
        # A probe that ran out of time may still hold a thread (a connect that hangs): no
        # second one starts beside it, so a long outage cannot pile them up.
        if self._pending is None or self._pending.done():
            self._pending = asyncio.ensure_future(self.probe())
            self._pending.add_done_callback(_retrieved)
        try:
            async with asyncio.timeout(TIMEOUT):
                await asyncio.shield(self._pending)
            up = True
        except Exception:
            up = False
        if up != self.up:
            self.up, self.since = up, time.time()
            if up:
                log.warning(f"the {self.name} answers again")
            else:
                log.warning(f"the {self.name} does not answer: the node serves on, degraded")


def _retrieved(future: asyncio.Future[object]) -> None:
    # A probe awaited past its time ends unobserved: its error was already counted.
    if not future.cancelled():
        future.exception()


class Health:
    """What ``/livez``, ``/readyz`` and ``/healthz`` answer, from the last probes."""

    def __init__(self) -> None:
        self.parts: dict[str, Part] = {}
        self.started = False
        """The node has started: its tables are being taken (readiness)."""
        self.stopping = False
        """The node is stopping: the proxy should send new clients elsewhere."""
        self.checked = asyncio.Event()
        """Set when anyone has asked this node's readiness (a proxy can reach it)."""
        self._task: asyncio.Task[None] | None = None

    def watch(self, name: str, probe: Probe) -> None:
        """Probe ``name`` (``database``, ``directory``) every ``PERIOD``."""
        self.parts[name] = Part(name, probe)

    def up(self, name: str) -> bool | None:
        """Whether ``name`` answered its last probe (None: not a part of this node)."""
        part = self.parts.get(name)
        return None if part is None else part.up

    @property
    def degraded(self) -> list[str]:
        """The shared parts that did not answer their last probe."""
        return [p.name for p in self.parts.values() if not p.up]

    @property
    def ready(self) -> bool:
        """Whether a proxy should send clients here: started and not stopping. A shared part
        away does not count: every node misses it alike."""
        return self.started and not self.stopping

    def status(self) -> str:
        """One word: ``starting``, ``stopping``, ``degraded`` or ``ok``."""
        if self.stopping:
            return "stopping"
        if not self.started:
            return "starting"
        return "degraded" if self.degraded else "ok"

    def start(self) -> None:
        """Probe every part now and every ``PERIOD`` in a task of its own."""
        self._task = asyncio.create_task(self._run(), name="health")

    async def probe(self) -> None:
        """Probe every part once, side by side."""
        await asyncio.gather(*(p.check() for p in self.parts.values()))

    async def _run(self) -> None:
        while True:
            await self.probe()
            await asyncio.sleep(PERIOD)

    async def stop(self) -> None:
        """Stop probing."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
