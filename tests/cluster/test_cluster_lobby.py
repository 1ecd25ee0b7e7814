"""The lobby: every node's lines reach every node, stamped with the owner's URL."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from typing import Any

from baccarat.cluster import Directory, LobbyChange

NodeFactory = Callable[[], Directory]


def _line(table_id: str, taken: int = 0) -> dict[str, Any]:
    return {"table_id": table_id, "room_id": "standard", "name": table_id, "taken": taken}


async def _next(changes: AsyncIterator[LobbyChange]) -> LobbyChange:
    # The bound only keeps a lost message from hanging the suite.
    return await asyncio.wait_for(anext(changes), 5.0)


async def test_only_the_lease_holder_may_publish_a_table(nodes: NodeFactory) -> None:
    a, b = nodes(), nodes()
    assert await a.acquire("t1", "A", 10.0) is not None
    assert await b.publish("B", _line("t1"), 10.0) is False
    assert await b.publish("B", _line("t2"), 10.0) is False
    assert await b.all_summaries() == {}
    assert await a.publish("A", _line("t1"), 10.0) is True


async def test_a_line_published_on_one_node_shows_on_another_with_its_url(
    nodes: NodeFactory,
) -> None:
    a, b = nodes(), nodes()
    await a.register("A", "http://a:8000", 10.0)
    await b.register("B", "http://b:8000", 10.0)
    assert await a.acquire("t1", "A", 10.0) is not None
    assert await b.acquire("t2", "B", 10.0) is not None
    assert await a.publish("A", _line("t1", 3), 10.0) is True
    assert await b.publish("B", _line("t2"), 10.0) is True
    lines = await b.all_summaries()
    assert lines == {
        "t1": {**_line("t1", 3), "node_id": "A", "url": "http://a:8000"},
        "t2": {**_line("t2"), "node_id": "B", "url": "http://b:8000"},
    }
    assert await a.all_summaries() == lines


async def test_a_subscriber_on_another_node_hears_each_publish_and_withdrawal(
    nodes: NodeFactory,
) -> None:
    a, b = nodes(), nodes()
    await a.register("A", "http://a:8000", 10.0)
    assert await a.acquire("t1", "A", 10.0) is not None
    async with b.lobby_changes() as changes:
        assert await a.publish("A", _line("t1", 1), 10.0) is True
        assert await a.publish("A", _line("t1", 2), 10.0) is True
        first, second = await _next(changes), await _next(changes)
        assert first == LobbyChange(
            "t1", {**_line("t1", 1), "node_id": "A", "url": "http://a:8000"}
        )
        assert second.summary is not None and second.summary["taken"] == 2
        assert await b.withdraw("t1", "B") is False
        assert await a.withdraw("t1", "A") is True
        assert await _next(changes) == LobbyChange("t1", None)
    assert await b.all_summaries() == {}


async def test_a_refused_publish_is_not_announced(nodes: NodeFactory) -> None:
    a, b = nodes(), nodes()
    assert await a.acquire("t1", "A", 10.0) is not None
    async with a.lobby_changes() as changes:
        assert await b.publish("B", _line("t1"), 10.0) is False
        assert await a.publish("A", _line("t1", 4), 10.0) is True
        change = await _next(changes)
        assert change.summary is not None and change.summary["node_id"] == "A"


async def test_a_line_whose_node_stops_publishing_expires(nodes: NodeFactory) -> None:
    a, b = nodes(), nodes()
    assert await a.acquire("t1", "A", 10.0) is not None
    assert await a.acquire("t2", "A", 10.0) is not None
    assert await a.publish("A", _line("t1"), 0.1) is True
    assert await a.publish("A", _line("t2"), 10.0) is True
    for _ in range(200):
        if "t1" not in await b.all_summaries():
            break
        await asyncio.sleep(0.02)
    assert set(await b.all_summaries()) == {"t2"}


async def test_a_refresh_keeps_the_line_and_tells_nobody(nodes: NodeFactory) -> None:
    # A line published for 0.3 s is refreshed (not announced) for another 10 s: it outlives
    # its first ttl, and the follower hears only the change after it.
    a, b = nodes(), nodes()
    assert await a.acquire("t1", "A", 10.0) is not None
    async with b.lobby_changes() as changes:
        assert await a.publish("A", _line("t1", 1), 0.3) is True
        assert (await _next(changes)).summary is not None
        assert await a.publish("A", _line("t1", 1), 10.0, announce=False) is True
        await asyncio.sleep(0.5)
        assert set(await b.all_summaries()) == {"t1"}
        assert await a.publish("A", _line("t1", 2), 10.0) is True
        heard = await _next(changes)
        assert heard.summary is not None and heard.summary["taken"] == 2
