"""A serving process's hold on its database's lock (``baccarat.store.solo``): taken before
the server writes anything, checked while it runs, given back when it stops."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator

from baccarat.cluster.outage import Outage
from baccarat.store import Store
from baccarat.store.solo import TAKEN, SoloLock

log = logging.getLogger("baccarat.server")

CHECK = 5.0
"""Seconds between checks that the lock is still held."""


@contextlib.asynccontextmanager
async def held(store: Store, url: str, *, shared: bool) -> AsyncIterator[SoloLock]:
    """Hold the lock for the block: alone (``shared`` False) or as one node of many. A
    ``Conflict('server_running')`` says who holds it otherwise."""
    lock = SoloLock(store.engine, url, shared=shared)
    await asyncio.to_thread(lock.take)
    kept = asyncio.create_task(_keep(lock), name="database-lock")
    try:
        yield lock
    finally:
        kept.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await kept
        lock.release()


async def _keep(lock: SoloLock) -> None:
    """Check the lock every few seconds; take it again after a database outage."""
    outage = Outage("keeping the server's lock on the database", log)
    while True:
        await asyncio.sleep(CHECK)
        try:
            if not await asyncio.to_thread(lock.kept):
                log.error(TAKEN.format(where="it took this server's lock during an outage"))
        except Exception as exc:
            outage.failed(exc)
        else:
            outage.passed()
