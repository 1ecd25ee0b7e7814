"""Following the lobby from a node's background task."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

from baccarat.cluster import Directory, LobbyChange, LocalDirectory
from baccarat.cluster.follow import follow_lobby

NodeFactory = Callable[[], Directory]


async def test_every_withdrawal_elsewhere_reaches_the_follower(nodes: NodeFactory) -> None:
    a, b = nodes(), nodes()
    heard: asyncio.Queue[LobbyChange] = asyncio.Queue()
    assert await a.acquire("t1", "A", 10.0) is not None
    task = asyncio.create_task(follow_lobby(b, heard.put_nowait))
    try:
        # Withdraw until the follower is listening, then one more that must arrive.
        while heard.empty():
            assert await a.publish("A", {"table_id": "t1"}, 10.0)
            assert await a.withdraw("t1", "A")
            await asyncio.sleep(0.02)
        assert await a.publish("A", {"table_id": "t2"}, 10.0) is False
        assert await a.acquire("t2", "A", 10.0) is not None
        assert await a.publish("A", {"table_id": "t2"}, 10.0)
        assert await a.withdraw("t2", "A")
        while True:
            change = await asyncio.wait_for(heard.get(), 5.0)
            if change.table_id == "t2":
                break
        assert change.summary is None
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


class Dropping(LocalDirectory):
    """A directory whose first lobby feed breaks at once."""

    def __init__(self) -> None:
        super().__init__()
        self.feeds = 0

    @asynccontextmanager
    async def lobby_changes(self) -> AsyncIterator[AsyncIterator[LobbyChange]]:
        self.feeds += 1
        if self.feeds == 1:
            raise ConnectionError("dropped")
        async with super().lobby_changes() as changes:
            yield changes


async def test_a_dropped_feed_is_followed_again_and_the_node_told_when_it_starts() -> None:
    d = Dropping()
    started = asyncio.Event()
    heard: asyncio.Queue[LobbyChange] = asyncio.Queue()
    assert await d.acquire("t1", "A", 10.0) is not None
    task = asyncio.create_task(follow_lobby(d, heard.put_nowait, on_start=started.set, retry=0.01))
    try:
        await asyncio.wait_for(started.wait(), 5.0)
        assert await d.publish("A", {"table_id": "t1"}, 10.0)
        assert await d.withdraw("t1", "A")
        change = await asyncio.wait_for(heard.get(), 5.0)
        assert change.table_id == "t1" and d.feeds == 2
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
