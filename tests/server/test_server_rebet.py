"""Rebet, double and undo over a real socket: one command each, whole or refused whole."""

from __future__ import annotations

import asyncio
import random

import pytest
from server_live import Live, auto_open, is_event, live_test

from baccarat.bots import Bot, BotPlan, run_bots
from baccarat.client import CommandError


@live_test()
async def test_rebet_double_and_undo_over_the_socket(live: Live) -> None:
    dealer = await live.client("dealer", 1_000_000)
    alice = await live.client("alice")
    auto_open(alice)
    # Each betting (0.8 s at this speed) stands still while alice's commands go in.
    hold = live.server.drivers["t1"].hold
    hold.at("betting")
    # The dealer sits last, so alice sees the first betting open.
    await alice.sit("t1", 1)
    await dealer.sit("t1", 0)
    await alice.wait_for(is_event("betting_opened"), 10)
    with pytest.raises(CommandError) as err:
        await alice.rebet()
    assert err.value.code == "nothing_to_rebet"
    await alice.bet("banker", 5)
    await alice.bet("tie", 1)
    await alice.undo()
    changed = await alice.wait_for(is_event("bets_changed"), 10)
    assert changed["data"]["bets"] == {"banker": 5}
    await alice.double()
    changed = await alice.wait_for(is_event("bets_changed"), 10)
    assert (changed["data"]["action"], changed["data"]["bets"]) == ("double", {"banker": 10})
    hold.at(None)
    await alice.wait_for(is_event("round_settled"), 30)
    hold.at("betting")
    await alice.wait_for(is_event("betting_opened"), 30)
    view = await alice.resync()
    assert view["me"]["rebet"] == {"banker": 10} and view["me"]["can_rebet"] is True
    await alice.rebet()
    with pytest.raises(CommandError) as err:
        await alice.rebet()
    assert err.value.code == "already_bet"
    view = await alice.resync()
    assert view["seats"][1]["bets"] == {"banker": 10}
    # Doubling 10 Banker chips to 20 is fine; doubling again to 40 too; then 80 is over 50.
    await alice.double()
    await alice.double()
    with pytest.raises(CommandError) as err:
        await alice.double()
    assert (err.value.code, err.value.details) == ("over_limit", {"area": "banker", "limit": 50})
    assert (await alice.resync())["seats"][1]["bets"] == {"banker": 40}
    hold.at(None)
    await alice.wait_for(is_event("round_settled"), 30)
    await asyncio.sleep(0.2)
    assert live.store.audit().ok
    await alice.close()
    await dealer.close()


@live_test()
async def test_a_flat_bot_repeats_its_bets_with_a_rebet(live: Live) -> None:
    _, dealer_token = await live.user("dealerbot", 1_000_000)
    _, flat_token = await live.user("flatbot", 1_000_000)
    bots = [
        Bot(live.base, dealer_token, BotPlan("flat", "t1", seat=0), rng=random.Random(1)),
        Bot(live.base, flat_token, BotPlan("flat", "t1", seat=3, may_deal=False)),
    ]
    stop = asyncio.Event()
    task = asyncio.create_task(run_bots(bots, stop))
    async with asyncio.timeout(60):
        while bots[1].rebets < 2:
            await asyncio.sleep(0.1)
            assert not task.done()
    stop.set()
    await task
    rounds = [r for r in live.store.history("flatbot") if r.status == "settled"]
    assert len(rounds) >= 2  # the first bet chip by chip, the next by a rebet
    assert {(b.area, b.chips) for r in rounds for b in r.bets} == {("banker", 2)}
