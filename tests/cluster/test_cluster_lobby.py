"""The lobby: every node's lines can be read on every node, a page at a time, stamped with
the owner's URL; only withdrawals are announced."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from typing import Any

from baccarat.cluster import Directory, LobbyChange, LobbyPage

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


async def test_a_follower_on_another_node_hears_each_withdrawal_and_no_publish(
    nodes: NodeFactory,
) -> None:
    a, b = nodes(), nodes()
    await a.register("A", "http://a:8000", 10.0)
    assert await a.acquire("t1", "A", 10.0) is not None
    async with b.lobby_changes() as changes:
        assert await a.publish("A", _line("t1", 1), 10.0) is True
        assert await a.publish("A", _line("t1", 2), 10.0) is True
        assert (await b.all_summaries())["t1"]["taken"] == 2
        assert await b.withdraw("t1", "B") is False
        assert await a.withdraw("t1", "A") is True
        # The first thing heard: neither publish, nor the refused withdrawal.
        assert await _next(changes) == LobbyChange("t1", None)
    assert await b.all_summaries() == {}
    assert await b.page(None, None, 0, 24) == LobbyPage(0, [])


def _roads(table_id: str, room: str, *patterns: str, taken: int = 0) -> dict[str, Any]:
    return {
        **_line(table_id, taken),
        "room_id": room,
        "good_roads": [{"pattern": p, "length": 4} for p in patterns],
    }


async def test_a_page_holds_the_views_tables_in_lobby_order(nodes: NodeFactory) -> None:
    a, b = nodes(), nodes()
    await a.register("A", "http://a:8000", 10.0)
    # Ranks as in a rooms file: s1 s2 s3 in room s, then v1 v2 in room v; x9 and x8 are
    # tables the file does not list (one rank after, by id).
    lines = {
        "s1": (0, _roads("s1", "s", "long_banker")),
        "s2": (1, _roads("s2", "s")),
        "s3": (2, _roads("s3", "s", "ping_pong", "long_banker")),
        "v1": (3, _roads("v1", "v", "ping_pong")),
        "v2": (4, _roads("v2", "v")),
        "x9": (5, _roads("x9", "v")),
        "x8": (5, _roads("x8", "v", "long_banker")),
    }
    for table_id, (rank, line) in lines.items():
        assert await a.acquire(table_id, "A", 10.0) is not None
        assert await a.publish("A", line, 10.0, rank=rank)

    async def ids(room: str | None, road: str | None, start: int = 0, count: int = 24) -> Any:
        page = await b.page(room, road, start, count)
        assert all(line["url"] == "http://a:8000" for line in page.lines)
        return page.total, [line["table_id"] for line in page.lines]

    assert await ids(None, None) == (7, ["s1", "s2", "s3", "v1", "v2", "x8", "x9"])
    assert await ids(None, None, 2, 3) == (7, ["s3", "v1", "v2"])
    assert await ids(None, None, 7, 3) == (7, [])
    assert await ids("v", None) == (4, ["v1", "v2", "x8", "x9"])
    assert await ids("s", "long_banker") == (2, ["s1", "s3"])
    assert await ids(None, "long_banker") == (3, ["s1", "s3", "x8"])
    assert await ids(None, "any") == (4, ["s1", "s3", "v1", "x8"])
    assert await ids("v", "any", 1, 1) == (2, ["x8"])
    assert await ids("nowhere", None) == (0, [])

    # A road that breaks takes the table off that road's pages; a new one brings it in.
    assert await a.publish("A", _roads("s1", "s", "ping_pong", taken=3), 10.0, rank=0)
    assert await ids(None, "long_banker") == (2, ["s3", "x8"])
    assert await ids("s", "ping_pong") == (2, ["s1", "s3"])
    assert (await b.page("s", None, 0, 1)).lines[0]["taken"] == 3
    # A withdrawn table leaves every page.
    assert await a.withdraw("s3", "A")
    assert await ids("s", None) == (2, ["s1", "s2"])
    assert await ids(None, "any") == (3, ["s1", "v1", "x8"])


async def test_a_line_whose_node_stops_publishing_expires(nodes: NodeFactory) -> None:
    a, b = nodes(), nodes()
    assert await a.acquire("t1", "A", 10.0) is not None
    assert await a.acquire("t2", "A", 10.0) is not None
    assert await a.publish("A", _roads("t1", "s", "ping_pong"), 0.1, rank=0) is True
    assert await a.publish("A", _roads("t2", "s", "ping_pong"), 10.0, rank=1) is True
    for _ in range(200):
        if "t1" not in await b.all_summaries():
            break
        await asyncio.sleep(0.02)
    assert set(await b.all_summaries()) == {"t2"}
    for room, road in [(None, None), ("s", None), ("s", "ping_pong"), (None, "any")]:
        page = await b.page(room, road, 0, 24)
        assert (page.total, [line["table_id"] for line in page.lines]) == (1, ["t2"])


async def test_a_refresh_keeps_the_line_and_tells_nobody(nodes: NodeFactory) -> None:
    # A line published for 0.3 s is published again for another 10 s: it outlives its
    # first ttl, and a follower hears nothing of either.
    a, b = nodes(), nodes()
    assert await a.acquire("t1", "A", 10.0) is not None
    async with b.lobby_changes() as changes:
        assert await a.publish("A", _line("t1", 1), 0.3) is True
        assert await a.publish("A", _line("t1", 1), 10.0) is True
        await asyncio.sleep(0.5)
        assert set(await b.all_summaries()) == {"t1"}
        assert (await b.page(None, None, 0, 24)).total == 1
        assert await a.withdraw("t1", "A")
        assert await _next(changes) == LobbyChange("t1", None)
