"""Table leases: one node per table, fencing tokens that only rise, takeover after expiry."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from baccarat.cluster import Directory, LocalDirectory, Owner

NodeFactory = Callable[[], Directory]


async def _until_free(d: Directory, table_id: str) -> None:
    # Waits out a short ttl; the bound only keeps a broken expiry from hanging the suite.
    for _ in range(200):
        if await d.owner(table_id) is None:
            return
        await asyncio.sleep(0.02)
    raise AssertionError(f"the lease on {table_id} never expired")


async def test_of_many_concurrent_acquirers_exactly_one_gets_the_table(nodes: NodeFactory) -> None:
    handles = [nodes() for _ in range(4)]
    tokens = await asyncio.gather(
        *(handles[i % 4].acquire("t1", f"node-{i}", 10.0) for i in range(40))
    )
    winners = [i for i, t in enumerate(tokens) if t is not None]
    assert len(winners) == 1
    owner = await handles[0].owner("t1")
    assert owner is not None and owner.node_id == f"node-{winners[0]}"


async def test_a_held_table_is_refused_to_another_node(nodes: NodeFactory) -> None:
    a, b = nodes(), nodes()
    assert await a.acquire("t1", "A", 10.0) is not None
    assert await b.acquire("t1", "B", 10.0) is None
    assert await b.acquire("t2", "B", 10.0) is not None


async def test_lease_expires_and_another_node_takes_over_with_a_higher_token(
    nodes: NodeFactory,
) -> None:
    a, b = nodes(), nodes()
    first = await a.acquire("t1", "A", 0.15)
    assert first is not None
    assert await b.acquire("t1", "B", 10.0) is None
    await _until_free(b, "t1")
    second = await b.acquire("t1", "B", 10.0)
    assert second is not None and second > first
    owner = await a.owner("t1")
    assert owner is not None and owner.node_id == "B"
    # The node that slept through its expiry learns it at its next renewal.
    assert await a.renew("t1", "A", first) is False
    assert await a.release("t1", "A", first) is False
    assert (await a.owner("t1")) == owner


async def test_renew_by_a_stale_token_is_refused(nodes: NodeFactory) -> None:
    a, b = nodes(), nodes()
    old = await a.acquire("t1", "A", 10.0)
    new = await a.acquire("t1", "A", 10.0)  # the holder asking again: a new grant
    assert old is not None and new is not None and new > old
    assert await a.renew("t1", "A", old) is False
    assert await b.renew("t1", "B", new) is False
    assert await a.renew("t1", "A", new) is True


async def test_renewal_keeps_the_lease_past_its_ttl(nodes: NodeFactory) -> None:
    a, b = nodes(), nodes()
    token = await a.acquire("t1", "A", 1.0)
    assert token is not None
    for _ in range(4):
        await asyncio.sleep(0.3)
        assert await a.renew("t1", "A", token) is True
    # 1.2 s have passed since the grant: only the renewals kept it.
    assert await b.acquire("t1", "B", 10.0) is None


async def test_release_frees_the_table_and_the_next_token_is_higher(nodes: NodeFactory) -> None:
    a, b = nodes(), nodes()
    first = await a.acquire("t1", "A", 10.0)
    assert first is not None
    assert await b.release("t1", "B", first) is False
    assert await a.release("t1", "A", first + 1) is False
    assert await a.release("t1", "A", first) is True
    assert await a.owner("t1") is None
    second = await b.acquire("t1", "B", 10.0)
    assert second is not None and second > first


async def test_owner_names_the_node_and_its_public_url(nodes: NodeFactory) -> None:
    a, b = nodes(), nodes()
    await a.register("A", "http://10.0.0.1:8000", 10.0)
    assert await a.acquire("t1", "A", 10.0) is not None
    assert await b.owner("t1") == Owner("A", "http://10.0.0.1:8000")
    await a.unregister("A")
    assert await b.owner("t1") == Owner("A", "")
    assert await b.owner("t2") is None


async def test_a_server_alone_keeps_its_tables_and_seats_through_a_stall() -> None:
    # A shared directory lets a silent node's lease run out; a server's own does not.
    for directory, kept in ((LocalDirectory(), False), (LocalDirectory.alone(), True)):
        token = await directory.acquire("t1", "A", 0.01)
        assert token is not None
        assert await directory.claim_seat(7, "t1", 3, "A", 0.01)
        await asyncio.sleep(0.05)  # the event loop stalled past the ttl
        assert await directory.renew("t1", "A", token) is kept
        assert (await directory.owner("t1") is not None) is kept
