"""The lobby lines of this node's tables that are still to be published to the directory.

The lobby puts a local table's line here when it changes, and so does a table as it starts
(its line goes out at once, not at the next tick); the node's one publishing task takes them,
the latest line of each table only, so a table's lines reach the directory in order.
"""

from __future__ import annotations

import asyncio

from baccarat.protocol.lobby import LineJson


class LineOutbox:
    """The latest unpublished line of each local table, and a wake-up for the publisher."""

    def __init__(self) -> None:
        self._pending: dict[str, LineJson] = {}
        self._wake = asyncio.Event()

    def put(self, line: LineJson) -> None:
        """A local table's line changed: publish it (replacing one not yet published)."""
        self._pending[str(line["table_id"])] = line
        self._wake.set()

    def put_back(self, line: LineJson) -> None:
        """A line whose publishing failed: publish it again, unless a newer one waits."""
        self._pending.setdefault(str(line["table_id"]), line)

    async def wait(self) -> None:
        """Until a line is put (at once if one waits)."""
        await self._wake.wait()

    def take(self) -> dict[str, LineJson]:
        """Every waiting line, by table id; the outbox is empty after."""
        self._wake.clear()
        pending, self._pending = self._pending, {}
        return pending
