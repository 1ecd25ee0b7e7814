"""Follow the shared lobby for as long as a node runs, reconnecting when the line drops."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from baccarat.cluster.directory import Directory, LobbyChange
from baccarat.cluster.outage import Outage

log = logging.getLogger("baccarat.cluster")

RETRY = 1.0
"""Seconds between attempts to follow the lobby again after the connection dropped."""


async def follow_lobby(
    directory: Directory,
    on_change: Callable[[LobbyChange], None],
    *,
    on_start: Callable[[], None] | None = None,
    retry: float = RETRY,
) -> None:
    """Hand every lobby change to ``on_change`` until cancelled.

    ``on_start`` is called each time the feed starts, the first time and after a dropped
    connection (changes published meanwhile were missed: re-read ``all_summaries`` there).
    """
    outage = Outage("the lobby feed", log)
    while True:
        try:
            async with directory.lobby_changes() as changes:
                if on_start is not None:
                    on_start()
                outage.passed()
                async for change in changes:
                    on_change(change)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            outage.failed(exc)
        await asyncio.sleep(retry)
