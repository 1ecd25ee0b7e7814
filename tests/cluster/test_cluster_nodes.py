"""Nodes: a heartbeat with a time-to-live, and the list of live nodes."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from baccarat.cluster import Directory

NodeFactory = Callable[[], Directory]


async def test_every_registered_node_is_listed_with_its_url(nodes: NodeFactory) -> None:
    a, b = nodes(), nodes()
    await a.register("A", "http://a:8000", 10.0)
    await b.register("B", "http://b:8000", 10.0)
    assert await a.nodes() == {"A": "http://a:8000", "B": "http://b:8000"}
    await b.unregister("B")
    assert await a.nodes() == {"A": "http://a:8000"}


async def test_a_node_whose_heartbeat_lapses_leaves_the_list(nodes: NodeFactory) -> None:
    a, b = nodes(), nodes()
    await a.register("A", "http://a:8000", 10.0)
    await b.register("B", "http://b:8000", 0.1)
    for _ in range(200):
        if "B" not in await a.nodes():
            break
        await asyncio.sleep(0.02)
    assert await a.nodes() == {"A": "http://a:8000"}
    # A heartbeat brings it back.
    await b.register("B", "http://b:8000", 10.0)
    assert set(await a.nodes()) == {"A", "B"}
