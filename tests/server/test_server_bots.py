"""Bots play by the rules over real sockets: they deal, bet, squeeze, and run from the CLI."""

from __future__ import annotations

import asyncio
import random
import signal
import sys

from server_live import Live, live_test

from baccarat.bots import Bot, BotPlan, choose_bet, run_bots


def test_strategies_bet_within_the_chips() -> None:
    rng = random.Random(7)
    history = [{"winner": "player"}, {"winner": "tie"}]
    assert choose_bet("flat", history, rng) == [("banker", 2)]
    assert choose_bet("streak", history, rng) == [("player", 3)]
    for _ in range(50):
        bets = choose_bet("random", history, rng)
        assert bets[0][0] in ("player", "banker")
        assert all(chip in (1, 2, 3, 5, 10) for _, chip in bets)


@live_test()
async def test_bots_take_the_free_dealer_seat_bet_and_squeeze(live: Live) -> None:
    bots = []
    for i, strategy in enumerate(("flat", "streak", "random")):
        _, token = await live.user(f"bot{i}", 1_000_000)
        plan = BotPlan(strategy, "t1", squeeze_chance=1.0)
        bots.append(Bot(live.base, token, plan, rng=random.Random(i)))
    stop = asyncio.Event()
    task = asyncio.create_task(run_bots(bots, stop))
    async with asyncio.timeout(60):
        while sum(b.rounds_bet for b in bots) < 6 or not any(b.squeezes for b in bots):
            await asyncio.sleep(0.1)
            assert not task.done()
    stop.set()
    await task
    seats = sorted(b.seat for b in bots if b.seat is not None)
    assert seats[0] == 0  # one of them deals
    report = live.store.audit()
    assert report.ok and report.rounds >= 2


@live_test()
async def test_the_bots_command_registers_and_plays_then_stops_on_sigterm(live: Live) -> None:
    dealer = await live.client("dealer", 1_000_000)
    await dealer.command("sit", table_id="t2", seat=0)
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "baccarat",
        "bots",
        "--url",
        live.base,
        "--count",
        "2",
        "--table",
        "t2",
        "--no-deal",
        "--seed",
        "1",
        stdout=asyncio.subprocess.PIPE,
    )
    async with asyncio.timeout(60):
        while live.store.audit().rounds < 2:
            await asyncio.sleep(0.2)
            assert proc.returncode is None
    proc.send_signal(signal.SIGTERM)
    out, _ = await proc.communicate()
    assert proc.returncode == 0
    assert b"rounds bet:" in out
    names = {u.username for u in live.store.list_users()}
    assert {"bot1", "bot2"} <= names
    await dealer.close()
