"""The test hooks' holds over HTTP: a table held in its result stays there until let go; a
skip ends a long betting at once; without ``--test-hooks`` the route does not exist; bad
input changes nothing."""

from __future__ import annotations

import asyncio
from typing import Any

import aiohttp
from server_live import ROOMS, Live, auto_open, is_event, live_test


async def _post(live: Live, table: str, body: Any) -> tuple[int, dict[str, Any]]:
    async with (
        aiohttp.ClientSession() as http,
        http.post(f"{live.base}/api/test/tables/{table}", json=body) as resp,
    ):
        return resp.status, await resp.json()


@live_test(test_hooks=True)
async def test_a_table_held_in_its_result_waits_there_until_let_go(live: Live) -> None:
    dealer = await live.client("dealer", 1_000_000)
    bettor = await live.client("bettor", 100_000, record=True)
    auto_open(bettor)
    status, state = await _post(live, "t1", {"hold": "result"})
    assert status == 200 and state["held"] is False
    await dealer.sit("t1", 0)
    await bettor.sit("t1", 1)  # betting opens with this seat
    await bettor.bet("player", 1)
    await bettor.wait_for(is_event("round_settled"), timeout=30)
    _, state = await _post(live, "t1", {"hold": "result"})
    assert state["phase"] == "result" and state["held"] is True
    # Far longer than the result lasts (0.2 s at the tests' speed): nothing comes.
    before = len(bettor.frames)
    await asyncio.sleep(1.0)
    assert [m for m in bettor.frames[before:] if m.get("type") == "event"] == []
    _, state = await _post(live, "t1", {"hold": None})
    assert state["held"] is False
    await bettor.wait_for(is_event("betting_opened"), timeout=10)
    await dealer.close()
    await bettor.close()


@live_test()
async def test_a_held_betting_keeps_its_time_when_the_step_that_opened_it_was_slow(
    live: Live,
) -> None:
    # The step that opens the betting takes longer than the betting (0.8 s at the tests'
    # speed), as on a loaded machine: the held betting still takes the bet after it.
    driver = live.server.drivers["t1"]
    commit = driver._commit

    async def slow(events: Any, answers: Any) -> None:
        await commit(events, answers)
        if any(type(e).__name__ == "BettingOpened" for e in events):
            await asyncio.sleep(1.5)

    driver._commit = slow  # type: ignore[method-assign]
    driver.hold.at("betting")
    dealer = await live.client("dealer", 1_000_000)
    bettor = await live.client("bettor", 100_000, record=True)
    await bettor.sit("t1", 1)
    await dealer.sit("t1", 0)  # betting opens with this seat
    await bettor.wait_for(is_event("betting_opened"), timeout=10)
    await asyncio.sleep(0.2)
    await bettor.bet("player", 1)
    driver.hold.at(None)
    await bettor.wait_for(is_event("betting_closed"), timeout=10)
    await dealer.close()
    await bettor.close()


LONG_BETTING = {**ROOMS, "timers": {**ROOMS["timers"], "betting": 600.0}}
"""A betting of a minute at the tests' speed: longer than the wait below."""


@live_test(test_hooks=True, rooms=LONG_BETTING)
async def test_a_skip_ends_the_phase_in_play_at_once(live: Live) -> None:
    dealer = await live.client("dealer", 1_000_000)
    bettor = await live.client("bettor", 100_000, record=True)
    await dealer.sit("t1", 0)
    await bettor.sit("t1", 1)  # betting opens with this seat
    await bettor.bet("player", 1)
    status, state = await _post(live, "t1", {"skip": True})
    assert status == 200 and state["held"] is False
    # The minute of betting is over at once: the round goes on to its cards.
    await bettor.wait_for(is_event("betting_closed"), timeout=20)
    await dealer.close()
    await bettor.close()


@live_test(test_hooks=True)
async def test_a_bad_hold_is_refused_and_changes_nothing(live: Live) -> None:
    bad = ({"hold": "nap"}, {"hold": 3}, {}, ["result"], {"skip": 1}, {"skip": True, "hold": None})
    for body in bad:
        status, answer = await _post(live, "t1", body)
        assert status == 400 and answer["error"]["code"] == "bad_message", body
    status, answer = await _post(live, "nowhere", {"hold": "result"})
    assert status == 404 and answer["error"]["code"] == "no_such_table"
    assert not live.server.drivers["t1"].hold.held


@live_test()
async def test_without_test_hooks_there_is_no_hold(live: Live) -> None:
    async with (
        aiohttp.ClientSession() as http,
        http.post(f"{live.base}/api/test/tables/t1", json={"hold": "result"}) as resp,
    ):
        assert resp.status in (404, 405)
    assert not live.server.drivers["t1"].hold.held
