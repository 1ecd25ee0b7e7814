"""Bots play by the rules over real sockets: they deal, bet, squeeze, and run from the CLI."""

from __future__ import annotations

import asyncio
import copy
import itertools
import os
import random
import signal
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from aiohttp import web
from server_live import ROOMS, Live, live_test, start_live

from baccarat.bots import Bot, BotPlan, choose_bet, run_bots
from baccarat.cli import build_parser
from baccarat.commands.bots import MAX_PROCESSES, crews


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
        plan = BotPlan(strategy, "t1", squeeze_chance=1.0, emote_chance=0.0, chat_chance=1.0)
        bots.append(Bot(live.base, token, plan, rng=random.Random(i)))
    stop = asyncio.Event()
    task = asyncio.create_task(run_bots(bots, stop))
    async with asyncio.timeout(60):
        while (
            sum(b.rounds_bet for b in bots) < 6
            or not any(b.squeezes for b in bots)
            or not any(b.said for b in bots)
        ):
            await asyncio.sleep(0.1)
            assert not task.done()
    stop.set()
    await task
    seats = sorted(b.seat for b in bots if b.seat is not None)
    assert seats[0] == 0  # one of them deals
    report = live.store.audit()
    assert report.ok and report.rounds >= 2


QUIET = {"squeeze_chance": 0.0, "urge_chance": 0.0, "emote_chance": 0.0, "chat_chance": 0.0}
LONG_BETTING: dict[str, Any] = {**ROOMS, "timers": {**ROOMS["timers"], "betting": 30.0}}
"""A 3 s betting at the live server's speed: room for a bot to come and sit in it."""


@live_test(rooms=LONG_BETTING)
async def test_a_bot_that_sits_down_while_a_betting_is_open_bets_in_it(live: Live) -> None:
    # A dealer and a bettor open a betting; a bot that comes then has missed its opening.
    early = []
    for i in range(2):
        _, token = await live.user(f"early{i}", 1_000_000)
        early.append(Bot(live.base, token, BotPlan("flat", "t1", **QUIET), rng=random.Random(i)))
    watcher = await live.client("watcher")
    await watcher.watch("t1")
    stop = asyncio.Event()
    tasks = [asyncio.create_task(run_bots(early, stop))]
    opened = await watcher.wait_for(
        lambda m: m.get("type") == "event" and m["event"] == "betting_opened"
    )
    _, token = await live.user("late", 1_000_000)
    late = Bot(live.base, token, BotPlan("flat", "t1", may_deal=False, **QUIET))
    tasks.append(asyncio.create_task(run_bots([late], stop)))
    # That round settles with the late bot's bet in it, placed once.
    round_id = opened["data"]["round_id"]
    late_id = live.store.get_user_by_name("late").user_id
    async with asyncio.timeout(30):
        while True:
            rounds = await asyncio.to_thread(live.store.history, "early0")
            done = [r for r in rounds if r.round_id == round_id and r.status == "settled"]
            if done:
                break
            await asyncio.sleep(0.1)
    stop.set()
    await asyncio.gather(*tasks)
    assert [b.user_id for b in done[0].bets].count(late_id) == 1, done[0].bets
    assert late.rounds_bet >= 1


def _parent_of(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("PPid:"):
            return int(line.split()[1])
    raise AssertionError(f"no PPid line for {pid}")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


async def _round_with_bets_of(live: Live, names: set[str]) -> bool:
    """Whether a settled round holds bets of every one of ``names``."""
    users = {live.store.get_user_by_name(n).user_id for n in names}
    for r in await asyncio.to_thread(live.store.history, min(names)):
        if r.status == "settled" and users <= {b.user_id for b in r.bets}:
            return True
    return False


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads /proc")
@live_test()
async def test_the_bots_command_runs_each_bot_in_its_own_process(live: Live) -> None:
    dealer = await live.client("dealer", 1_000_000)
    await dealer.sit("t2", 0)
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
    assert proc.stdout is not None
    pids: dict[int, str] = {}
    async with asyncio.timeout(60):
        while True:
            line = (await proc.stdout.readline()).decode()
            assert line, "the bots command ended early"
            if line.startswith("pid "):
                pid, _, names = line[4:].partition(": ")
                pids[int(pid)] = names.strip()
            if "Ctrl-C stops them" in line:
                break
        # One process per bot, each a child of the command.
        assert sorted(pids.values()) == ["bot1", "bot2"]
        assert proc.pid not in pids
        assert all(_parent_of(pid) == proc.pid for pid in pids)
        while not (
            {u.username for u in live.store.list_users()} >= {"bot1", "bot2"}
            and await _round_with_bets_of(live, {"bot1", "bot2"})
        ):
            await asyncio.sleep(0.2)
            assert proc.returncode is None
        async with aiohttp.ClientSession() as http, http.get(f"{live.base}/api/lobby") as resp:
            lobby = await resp.json()
        seated = {
            s["name"] for t in lobby["tables"] if t["table_id"] == "t2" for s in t["seats"] if s
        }
        assert {"bot1", "bot2"} <= seated
    proc.send_signal(signal.SIGTERM)
    out, _ = await proc.communicate()
    assert proc.returncode == 0
    assert int(out.decode().split("rounds bet:")[1]) >= 2
    # Stopping the command stopped every bot process.
    assert not any(_alive(pid) for pid in pids)
    await dealer.close()


def test_bots_are_spread_one_per_process_up_to_the_cap() -> None:
    parser = build_parser()
    args = parser.parse_args(["bots", "--count", "20", "--seed", "3"])
    spread = crews(args)
    assert len(spread) == MAX_PROCESSES
    names = [a.name for c in spread for a in c.accounts]
    assert sorted(names) == sorted(f"bot{i}" for i in range(1, 21))
    assert crews(args) == spread  # the seed fixes every bot's strategy and randomness
    few = crews(parser.parse_args(["bots", "--count", "5", "--processes", "2"]))
    assert [len(c.accounts) for c in few] == [3, 2]
    assert len(crews(parser.parse_args(["bots", "--count", "3"]))) == 3


def test_the_bots_command_fails_once_when_no_server_answers() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    # Bound and closed: nothing listens there now.
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "baccarat",
            "bots",
            "--count",
            "2",
            "--url",
            f"http://127.0.0.1:{port}",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1
    complaints = [line for line in done.stderr.splitlines() if line.startswith("baccarat bots:")]
    assert len(complaints) == 1, done.stderr
    assert "rounds bet" not in done.stdout


def test_the_bots_command_says_how_to_lift_the_registration_limit(tmp_path: Path) -> None:
    rooms = copy.deepcopy(ROOMS)
    rooms["server"]["register_per_ip"] = 1

    async def main() -> tuple[int | None, str]:
        live = await start_live(tmp_path, rooms)
        try:
            proc = await asyncio.create_subprocess_exec(
                sys.executable,
                "-m",
                "baccarat",
                "bots",
                "--url",
                live.base,
                "--count",
                "2",
                "--processes",
                "1",
                stdout=asyncio.subprocess.DEVNULL,
                stderr=asyncio.subprocess.PIPE,
            )
            async with asyncio.timeout(60):
                _, err = await proc.communicate()
            return proc.returncode, err.decode()
        finally:
            await live.test_server.close()
            live.store.close()

    code, err = asyncio.run(main())
    # The second registration is refused: the command stops and names the way out.
    assert code == 1
    assert "--register-per-ip" in err, err


async def test_a_bot_backs_off_while_its_node_refuses_the_socket_but_answers_the_lobby() -> None:
    # A node whose database is down: the lobby answers, every socket is refused with 503.
    attempts: list[float] = []

    async def ws(request: web.Request) -> web.Response:
        attempts.append(asyncio.get_running_loop().time())
        return web.json_response(
            {"error": {"code": "service_unavailable", "message": "down"}},
            status=503,
            headers={"Retry-After": "5"},
        )

    async def lobby(request: web.Request) -> web.Response:
        return web.json_response({"tables": [], "rooms": []})

    app = web.Application()
    app.router.add_get("/ws", ws)
    app.router.add_get("/api/lobby", lobby)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    bot = Bot(f"http://127.0.0.1:{port}", "token", BotPlan(), rng=random.Random(3))
    bot.table_id, bot.seat = "t1", 1  # seated before the node's outage
    stop = asyncio.Event()
    task = asyncio.create_task(bot.run(stop))
    try:
        await asyncio.sleep(6.0)
    finally:
        stop.set()
        await task
        await runner.cleanup()
    gaps = [b - a for a, b in itertools.pairwise(attempts)]
    # Doubling from 0.25 s to the seated cap of 2 s (with jitter): about 6 tries, not 60.
    assert 3 <= len(attempts) <= 12, attempts
    assert max(gaps) >= 0.9, gaps
