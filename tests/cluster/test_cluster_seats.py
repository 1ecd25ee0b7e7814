"""Seat claims: a user holds at most one seat in the whole system."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from baccarat.cluster import Directory, SeatClaim

NodeFactory = Callable[[], Directory]


async def test_a_user_seated_on_one_node_is_refused_a_seat_on_another(
    nodes: NodeFactory,
) -> None:
    a, b = nodes(), nodes()
    assert await a.claim_seat(7, "t1", 2, "A", 10.0) is True
    assert await b.claim_seat(7, "t2", 1, "B", 10.0) is False
    assert await b.seat_of(7) == SeatClaim("t1", 2)
    # Another user is not affected.
    assert await b.claim_seat(8, "t2", 1, "B", 10.0) is True


async def test_of_concurrent_claims_at_different_tables_exactly_one_wins(
    nodes: NodeFactory,
) -> None:
    handles = [nodes() for _ in range(4)]
    won = await asyncio.gather(
        *(handles[i % 4].claim_seat(7, f"t{i}", 1, f"node-{i}", 10.0) for i in range(20))
    )
    assert won.count(True) == 1
    claim = await handles[0].seat_of(7)
    assert claim == SeatClaim(f"t{won.index(True)}", 1)


async def test_a_burst_of_claims_larger_than_the_connection_pool_is_answered(
    nodes: NodeFactory,
) -> None:
    a = nodes()
    won = await asyncio.gather(*(a.claim_seat(u, "t1", 1, "A", 10.0) for u in range(300)))
    assert won == [True] * 300
    assert await a.seat_of(299) == SeatClaim("t1", 1)


async def test_a_claim_at_the_same_table_replaces_the_seat(nodes: NodeFactory) -> None:
    a = nodes()
    assert await a.claim_seat(7, "t1", 2, "A", 10.0) is True
    assert await a.claim_seat(7, "t1", 0, "A", 10.0) is True
    assert await a.seat_of(7) == SeatClaim("t1", 0)


async def test_release_frees_the_seat_only_at_its_own_table(nodes: NodeFactory) -> None:
    a, b = nodes(), nodes()
    assert await a.claim_seat(7, "t1", 2, "A", 10.0) is True
    assert await b.release_seat(7, "t2") is False
    assert await b.seat_of(7) == SeatClaim("t1", 2)
    assert await a.release_seat(7, "t1") is True
    assert await a.seat_of(7) is None
    assert await b.claim_seat(7, "t2", 1, "B", 10.0) is True
    assert await a.release_seat(7, "t1") is False
    assert await a.seat_of(7) == SeatClaim("t2", 1)


async def test_a_claim_lapses_unless_renewed(nodes: NodeFactory) -> None:
    a, b = nodes(), nodes()
    assert await a.claim_seat(7, "t1", 2, "A", 1.0) is True
    assert await a.claim_seat(8, "t1", 3, "A", 1.0) is True
    for _ in range(3):
        await asyncio.sleep(0.4)
        assert await a.renew_seats("A", {7: "t1"}, 1.0) == set()
    # 1.2 s on: user 7 was renewed, user 8 was not.
    assert await b.seat_of(7) == SeatClaim("t1", 2)
    assert await b.seat_of(8) is None
    assert await b.claim_seat(8, "t2", 1, "B", 10.0) is True


async def test_renewal_reports_claims_that_are_not_this_nodes(nodes: NodeFactory) -> None:
    a, b = nodes(), nodes()
    assert await a.claim_seat(7, "t1", 2, "A", 10.0) is True
    assert await b.claim_seat(8, "t2", 1, "B", 10.0) is True
    lost = await a.renew_seats("A", {7: "t1", 8: "t2", 9: "t1", 10: "t3"}, 10.0)
    assert lost == {8, 9, 10}
    assert await a.renew_seats("A", {}, 10.0) == set()
    assert await a.renew_seats("A", {7: "t2"}, 10.0) == {7}
