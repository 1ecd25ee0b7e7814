"""A property: however stand, sit, bet and open race (two sockets per user, the dealer's
included), every seated user's coins at the table equal the ledger's after every round, and
no settlement the table announced is ever voided.

Each example runs a fresh live server (real SQLite file, real sockets) for a few seconds of
play while the ledger's writes are slowed now and then; the examples are few and short so
the test stays within CI time. ``BACCARAT_RACE_EXAMPLES=50`` runs a longer search.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sqlite3
import tempfile
import threading
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from server_live import ROOMS, TEST_LIMIT, Live, is_event, start_live

from baccarat.client import Client, CommandError
from baccarat.server.tables.driver import TableDriver
from baccarat.store.url import sqlite_path

RACE_ROOMS: dict[str, Any] = {
    **ROOMS,
    "timers": {
        "betting": 3.0,
        "squeeze": 1.0,
        "result": 0.5,
        "shuffle": 1.0,
        "reconnect_grace": 30.0,
    },
}
"""Short phases (a tenth of these at the tests' speed): many rounds in a few seconds."""

TABLES = ("t1", "t2")
ROUNDS = 8
"""Rounds (on either table) each example plays at least, unless its play time runs out."""
PLAY_SECONDS = 5.0
USERS = (("dealer", 50_000), ("ann", 45_000), ("ben", 40_000))
"""Each can deal (the dealer floor is 35,000), and a few losses take them below it."""

BETS = st.tuples(
    st.just("bet"),
    st.sampled_from(["player", "banker", "tie", "player_pair"]),
    st.sampled_from([1, 5, 10]),
)
SITS = st.tuples(st.just("sit"), st.sampled_from(TABLES), st.sampled_from([0, 0, 1, 2, 3]))
ACTIONS = st.one_of(
    SITS,
    SITS,
    st.tuples(st.just("stand")),
    BETS,
    BETS,
    BETS,
    st.tuples(st.just("open"), st.sampled_from(["player", "banker"])),
)
TRIGGERS = st.sampled_from(
    [None, "betting_opened", "betting_closed", "squeeze_started", "card_opened", "round_settled"]
)
STEP = st.tuples(st.integers(0, 1), ACTIONS, TRIGGERS, st.integers(0, 200))
"""(which of the user's two sockets, what, the table event to wait for first (None: none),
then milliseconds to wait): acting on a table's events aims at the windows between a step
and its ledger write, where races live."""
SCRIPTS = st.tuples(*(st.lists(STEP, min_size=4, max_size=16) for _ in USERS))
STALLS = st.lists(st.tuples(st.integers(0, 400), st.integers(20, 400)), min_size=1, max_size=8)
"""(milliseconds the ledger runs freely, milliseconds its write lock is then held): slow
ledger writes widen every window between a table's step and its commit, where races live."""


def run_on_a_thread(main: Callable[[], Awaitable[None]]) -> None:
    """Run ``main`` in a fresh event loop on its own thread (as the live tests do)."""
    failure: list[BaseException] = []

    def target() -> None:
        try:
            asyncio.run(main())  # type: ignore[arg-type]
        except BaseException as exc:
            failure.append(exc)

    thread = threading.Thread(target=target, name="money-races")
    thread.start()
    thread.join()
    if failure:
        raise failure[0]


async def table_against_ledger(live: Live, driver: TableDriver) -> dict[int, tuple[int, int]]:
    """Every seated user whose coins at the table differ from the ledger's: (table, ledger).

    Read inside the table's task, after every write of its earlier steps: one consistent
    moment of both.
    """
    ledger: dict[int, int] = {}
    out: dict[int, tuple[int, int]] = {}

    async def read() -> None:
        seated = [o.user_id for o in driver.table.seats if o is not None]
        ledger.update(await asyncio.to_thread(live.store.balances, seated))

    def compare(now: float) -> list[Any]:
        for occ in driver.table.seats:
            if occ is not None and occ.coins != ledger.get(occ.user_id):
                out[occ.user_id] = (occ.coins, ledger.get(occ.user_id, -1))
        return []

    await driver.submit(compare, prepare=read)
    return out


async def stall_the_ledger(live: Live, stalls: list[tuple[int, int]], stop: asyncio.Event) -> None:
    """Hold the database's write lock now and then, as a slow disk would."""
    path = sqlite_path(live.store.url)
    assert path is not None
    conn = sqlite3.connect(path, isolation_level=None, timeout=30, check_same_thread=False)
    try:
        step = 0
        while not stop.is_set():
            free_ms, held_ms = stalls[step % len(stalls)]
            step += 1
            await asyncio.sleep(free_ms / 1000)
            # Taking the lock waits for a write in progress: off the loop.
            await asyncio.to_thread(conn.execute, "BEGIN IMMEDIATE")
            try:
                await asyncio.sleep(held_ms / 1000)
            finally:
                conn.execute("ROLLBACK")
    finally:
        conn.close()


async def play(live: Live, scripts: tuple[list[Any], ...], stalls: list[tuple[int, int]]) -> None:
    sockets: list[tuple[Client, Client]] = []
    for name, coins in USERS:
        _, token = await live.user(name, coins)
        sockets.append(
            (await Client.connect(live.base, token), await Client.connect(live.base, token))
        )
    spectators = []
    for table_id in TABLES:
        _, token = await live.user(f"watch_{table_id}", 0)
        spectator = await Client.connect(live.base, token, record=True)
        await spectator.watch(table_id)
        spectators.append(spectator)
    # A table with a round from the start; the scripts move everyone from there.
    await sockets[1][0].sit("t1", 1)
    await sockets[0][0].sit("t1", 0)
    await sockets[2][0].sit("t2", 1)

    mismatches: list[tuple[str, dict[int, tuple[int, int]]]] = []
    checks: list[asyncio.Task[None]] = []
    rounds_checked = 0

    async def check(table_id: str) -> None:
        nonlocal rounds_checked
        found = await table_against_ledger(live, live.server.drivers[table_id])
        rounds_checked += 1
        if found:
            mismatches.append((table_id, found))

    def on_message(table_id: str) -> Callable[[dict[str, Any]], None]:
        def seen(msg: dict[str, Any]) -> None:
            if msg.get("type") == "event" and msg["event"] in signals:
                # Wake whoever waits for this kind of event, then re-arm it.
                signals[msg["event"]].set()
                signals[msg["event"]] = asyncio.Event()
            if is_event("round_settled")(msg) or is_event("round_voided")(msg):
                checks.append(asyncio.get_running_loop().create_task(check(table_id)))

        return seen

    signals: dict[str, asyncio.Event] = {
        kind: asyncio.Event()
        for kind in (
            "betting_opened",
            "betting_closed",
            "squeeze_started",
            "card_opened",
            "round_settled",
        )
    }
    for table_id, spectator in zip(TABLES, spectators, strict=True):
        spectator.on_message = on_message(table_id)

    async def act(user: int, script: list[Any]) -> None:
        # The script plays over and over until enough rounds have ended (or play time is up,
        # say when everyone has left the tables).
        step = 0
        while rounds_checked < ROUNDS and not time_up.is_set():
            socket, action, trigger, wait_ms = script[step % len(script)]
            step += 1
            if trigger is not None:
                # A table that waits for a dealer sends nothing: wait a bounded while.
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(signals[trigger].wait(), 0.5)
            await asyncio.sleep(0.01 + wait_ms / 1000)
            client = sockets[user][socket]
            kind, *args = action
            # Refusals are part of the game here; what matters is what the coins do.
            with contextlib.suppress(CommandError):
                await getattr(client, kind)(*args)

    time_up = asyncio.Event()
    asyncio.get_running_loop().call_later(PLAY_SECONDS, time_up.set)
    played = asyncio.Event()
    staller = asyncio.create_task(stall_the_ledger(live, stalls, played))
    try:
        await asyncio.gather(*(act(i, s) for i, s in enumerate(scripts)))
    finally:
        played.set()
        await staller
    # Let every round in play finish, then check each table once more.
    for driver in live.server.drivers.values():
        while driver.table.round is not None and not driver.table.round.settled:
            await asyncio.sleep(0.02)
    await asyncio.gather(*checks)
    for table_id in TABLES:
        await check(table_id)
    assert not mismatches, f"table and ledger disagree: {mismatches}"

    settled = {
        f["data"]["round_id"] for s in spectators for f in s.frames if is_event("round_settled")(f)
    }
    voided = {
        f["data"]["round_id"] for s in spectators for f in s.frames if is_event("round_voided")(f)
    }
    assert not settled & voided, "a settlement was announced for a voided round"
    for round_id in settled:
        assert live.store.get_round(round_id).status == "settled"
    report = live.store.audit()
    assert report.ok, report.problems
    for pair in sockets:
        for client in pair:
            await client.close()
    for spectator in spectators:
        await spectator.close()


@settings(
    max_examples=int(os.environ.get("BACCARAT_RACE_EXAMPLES", "3")),
    deadline=None,
    phases=[Phase.explicit, Phase.reuse, Phase.generate],
    suppress_health_check=[HealthCheck.too_slow],
)
@given(scripts=SCRIPTS, stalls=STALLS)
def test_table_balances_equal_the_ledger_after_every_round_whatever_the_races(
    scripts: tuple[list[Any], ...], stalls: list[tuple[int, int]]
) -> None:
    with tempfile.TemporaryDirectory() as tmp:

        async def main() -> None:
            live = await start_live(Path(tmp), RACE_ROOMS)
            try:
                async with asyncio.timeout(TEST_LIMIT):
                    await play(live, scripts, stalls)
            finally:
                await live.test_server.close()
                live.store.close()

        run_on_a_thread(main)
