"""The dealer queue over real sockets: a watcher in line is seated when the dealer leaves."""

from __future__ import annotations

import asyncio

import pytest
from server_live import Live, auto_open, is_event, live_test

from baccarat.client import CommandError


@live_test()
async def test_a_watcher_in_line_takes_the_dealer_seat_when_the_dealer_leaves(live: Live) -> None:
    dealer = await live.client("dealer", 1_000_000)
    alice = await live.client("alice")
    carol = await live.client("carol", 1_000_000)
    auto_open(alice)
    await dealer.sit("t1", 0)
    await alice.sit("t1", 1)
    with pytest.raises(CommandError) as err:
        await carol.join_queue()
    assert err.value.code == "not_watching"
    await carol.watch("t1")
    await carol.join_queue()
    changed = await carol.wait_for(is_event("dealer_queue"), 10)
    assert changed["data"]["queue"] == [{"user_id": carol.user_id, "name": "carol", "level": 50}]
    assert (await alice.resync())["dealer_queue"][0]["user_id"] == carol.user_id
    lines = {t["table_id"]: t for t in (await live.server.lobby.message())["tables"]}
    assert lines["t1"]["queue"] == 1
    # Someone else cannot jump the line to the free dealer seat later.
    await alice.wait_for(is_event("betting_opened"), 10)
    await alice.bet("player", 1)
    await dealer.stand()
    seated = await carol.wait_for(
        lambda m: is_event("seated")(m) and m["data"]["user_id"] == carol.user_id, 30
    )
    assert seated["data"]["seat"] == 0
    view = await carol.resync()
    assert view["me"]["role"] == "dealer" and view["dealer_queue"] == []
    assert live.server.seating.seats.at[carol.user_id] == ("t1", 0)
    await asyncio.sleep(0.1)
    assert live.store.audit().ok
    for c in (dealer, alice, carol):
        await c.close()


@live_test()
async def test_a_watcher_who_leaves_the_table_leaves_the_line(live: Live) -> None:
    dealer = await live.client("dealer", 1_000_000)
    carol = await live.client("carol", 1_000_000)
    await dealer.sit("t1", 0)
    await carol.watch("t1")
    await carol.join_queue()
    with pytest.raises(CommandError) as err:
        await carol.join_queue()
    assert err.value.code == "already_queued"
    await carol.leave()
    left = await dealer.wait_for(
        lambda m: is_event("dealer_queue")(m) and m["data"]["change"] == "left", 10
    )
    assert left["data"]["reason"] == "away" and left["data"]["queue"] == []
    poor = await live.client("poor", 10_000)
    await poor.watch("t1")
    with pytest.raises(CommandError) as err:
        await poor.join_queue()
    assert (err.value.code, err.value.details["floor"]) == ("coins_below_floor", 35_000)
    for c in (dealer, carol, poor):
        await c.close()
