"""A table whose epoch another node took: its late settlement is refused, nothing moves, and
the table stops here (listed in the node's health) until its taker is gone."""

from __future__ import annotations

import asyncio

import aiohttp
import pytest
from server_live import SLOW_SQUEEZE, Live, auto_open, is_event, live_test

from scrape import scrape


async def _late_settlement_is_refused(live: Live) -> None:
    dealer = await live.client("dealer", 1_000_000)
    bettor = await live.client("alice", 100_000)
    start = {c.user_id: live.store.balance(c.user_id) for c in (dealer, bettor)}
    await dealer.sit("t1", 0)
    await bettor.sit("t1", 1)
    await bettor.wait_for(is_event("betting_opened"))
    await bettor.bet("banker", 5)
    started = await bettor.wait_for(is_event("squeeze_started"))
    round_id = started["data"]["round_id"]
    assert live.store.get_round(round_id).status == "escrowed"
    assert live.store.balance(bettor.user_id) == start[bettor.user_id] - 500

    # Another node (another system's, unseen in this one's directory) takes the table over
    # while this one is mid-squeeze.
    live.store.advertise("elsewhere", "http://elsewhere.invalid")
    ledger = live.server.drivers["t1"].ledger
    taken = live.store.take_table("t1", "elsewhere")
    assert taken.voided == [round_id]

    auto_open(bettor)
    await bettor.open(started["data"]["hand"])
    voided = await bettor.wait_for(is_event("round_voided"))
    assert voided["data"]["round_id"] == round_id
    assert ledger.fenced
    assert live.store.get_round(round_id).status == "voided"
    # Counted by this node as taken over (the new owner's void is a crash's).
    scraped = await scrape(live.server)
    assert scraped.value("baccarat_rounds_voided_total", reason="taken_over") == 1
    assert {uid: live.store.balance(uid) for uid in start} == start
    report = live.store.audit()
    assert report.ok, report.problems
    # The table stops offering itself here, and says so, while its taker runs ...
    async with aiohttp.ClientSession() as http:
        for _ in range(200):
            async with http.get(live.base + "/healthz") as answer:
                health = await answer.json()
            if health["taken"] == ["t1"] and "t1" not in live.server.drivers:
                break
            await asyncio.sleep(0.05)
        assert health["taken"] == ["t1"] and health["ok"], health
        assert live.store.epoch_of("t1") == taken.epoch
        # ... and takes it back once the taker is gone.
        live.store.withdraw("elsewhere")
        for _ in range(200):
            driver = live.server.drivers.get("t1")
            if driver is not None and driver.running:
                break
            await asyncio.sleep(0.05)
        assert live.store.epoch_of("t1") > taken.epoch
        async with http.get(live.base + "/healthz") as answer:
            assert (await answer.json())["taken"] == []
    await dealer.close()
    await bettor.close()


@live_test(rooms=SLOW_SQUEEZE)
async def test_a_settlement_after_another_node_took_the_table_is_refused(live: Live) -> None:
    await _late_settlement_is_refused(live)


@pytest.mark.postgres
@live_test(postgres=True, rooms=SLOW_SQUEEZE)
async def test_a_settlement_after_a_takeover_is_refused_by_postgresql(live: Live) -> None:
    await _late_settlement_is_refused(live)
