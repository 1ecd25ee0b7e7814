"""What a server reports to its operator at /metrics, each figure driven by its real event:
logins and registrations refused by a rate limit, the lateness of a table's timed steps,
rounds a crash left in escrow, and the process's own memory and CPU."""

from __future__ import annotations

import time
from pathlib import Path

from http_from import login_from, post
from server_live import ROOMS, Live, is_event, live_test, start_live

from baccarat.store import BetRecord, open_store
from scrape import scrape


def _rooms(**server: int) -> dict[str, object]:
    return {**ROOMS, "server": {**ROOMS["server"], **server}}


@live_test(rooms=_rooms(login_attempts=3, register_per_ip=1))
async def test_logins_and_registrations_refused_by_a_limit_are_counted_by_setting(
    live: Live,
) -> None:
    await live.user("alice")
    for _ in range(3):
        assert (await login_from(live.base, "alice", "guess")).status == 401
    assert (await login_from(live.base, "alice", "guess")).status == 429
    body = {"username": "mei", "password": "secret12"}
    assert (await post(live.base, "/api/register", body)).status == 201
    body = {"username": "mei2", "password": "secret12"}
    assert (await post(live.base, "/api/register", body)).status == 429

    scraped = await scrape(live.server)
    counted = {
        s.labels["limit"]: s.value
        for s in scraped.samples
        if s.name == "baccarat_auth_rate_limited_total"
    }
    assert counted == {
        "login_attempts": 1,
        "login_attempts_per_ip": 0,
        "login_attempts_per_name": 0,
        "register_per_ip": 1,
        "register_per_hour": 0,
    }


@live_test()
async def test_a_tables_timed_steps_are_measured_from_when_they_fell_due(live: Live) -> None:
    dealer = await live.client("dealer", 1_000_000)
    bettor = await live.client("alice")
    await dealer.sit("t1", 0)
    await bettor.sit("t1", 1)
    await bettor.wait_for(is_event("betting_opened"))
    await bettor.bet("banker", 5)
    # Betting closes when its timer falls due: a timed step, whose events every screen waits.
    await bettor.wait_for(is_event("betting_closed"))
    scraped = await scrape(live.server)
    count = scraped.value("baccarat_delivery_seconds_count")
    assert count is not None and count >= 1
    assert scraped.value("baccarat_delivery_seconds_bucket", le="+Inf") == count
    assert (scraped.value("baccarat_delivery_seconds_sum") or 0) >= 0
    await dealer.close()
    await bettor.close()


async def test_rounds_a_crash_left_in_escrow_are_counted_as_crash_voids(tmp_path: Path) -> None:
    # What a server that died mid-round left behind at t1.
    store = open_store(f"sqlite:///{tmp_path / 'baccarat.db'}")
    dealer = store.create_user("dealer", "password1", level=50, coins=100_000)
    bettor = store.create_user("bettor", "password1", level=50, coins=100_000)
    store.record_shoe_start("shoe-1", "t1", "00" * 32)
    bets = [BetRecord(bettor.user_id, "tie", 2, 200, time.time())]
    store.escrow_round("r-1", "t1", "shoe-1", 1, dealer.user_id, bets)
    store.close()

    live = await start_live(tmp_path)
    try:
        assert live.store.get_round("r-1").status == "voided"
        scraped = await scrape(live.server)
        assert scraped.value("baccarat_rounds_voided_total", reason="crash") == 1
    finally:
        await live.test_server.close()
        live.store.close()


@live_test()
async def test_the_process_memory_and_cpu_are_in_the_servers_own_metrics(live: Live) -> None:
    scraped = await scrape(live.server)
    assert (scraped.value("process_resident_memory_bytes") or 0) > 0
    assert scraped.value("process_cpu_seconds_total") is not None
    assert (scraped.value("process_open_fds") or 0) > 0
