"""Benchmark: the pure table's cost per command, per round and per view.

Plays whole rounds at one table (a dealer and seven bettors, each placing a few chips, both
hands opened at once) on a fake clock, and times the parts a server pays for: commands,
timers, one view per viewer kind, a round's events made wire data (``baccarat.protocol.values``),
the ``me`` of every seated user (what the server checks after each change to send the
private ``me`` event), and mid-betting the seven bettors' ``me`` keys (what the server
compares after each chip to skip building a ``me`` that did not change). Prints a Markdown table for docs/benchmarks.md.
With ``--builds pure,compiled`` it runs once per build of the package (``baccarat.compiled``:
pure Python, and the hot path compiled with mypyc) in turn, and prints them side by side.

    python bench/bench_table.py [--rounds N] [--builds pure,compiled]
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import subprocess
import sys
import time
from typing import Any

from baccarat.errors import BaccaratError
from baccarat.protocol.events import event_wire
from baccarat.protocol.view import view
from baccarat.shoe import Shoe
from baccarat.table import OpenCard, PlaceChip, Sit, Table, TableConfig, UserInfo
from baccarat.table.events import Event
from baccarat.table.view import personal, personal_keys

AREAS = ("player", "banker", "tie", "player_pair", "banker_pair")


def new_table() -> tuple[Table, list[float]]:
    """A table with a dealer (user 100) and seven bettors (users 1-7), quorum reached."""
    seeds = itertools.count(1)
    ids = itertools.count(1)
    table = Table(
        TableConfig("bench"),
        lambda: Shoe.from_seed(next(seeds).to_bytes(32, "big")),
        new_id=lambda: f"r{next(ids)}",
    )
    clock = [0.0]
    table.handle(Sit(100, UserInfo(100, "dealer", 60, 10**9), 0), clock[0])
    for seat in range(1, 8):
        table.handle(Sit(seat, UserInfo(seat, f"b{seat}", 60, 10**9), seat), clock[0])
    return table, clock


LOG: list[tuple[Event, float]] = []
"""The events of the round being played, with their time (kept for the wire figure)."""


def try_command(table: Table, command: OpenCard, now: float) -> bool:
    """Send a command; False when the table refuses it (not this card's turn)."""
    try:
        LOG.extend((ev, now) for ev in table.handle(command, now))
    except BaccaratError:
        return False
    return True


def play_round(table: Table, clock: list[float]) -> int:
    """Bet, open every card as soon as it can be, run the timers; return the commands sent."""
    sent = 0
    while table.phase != "betting":
        clock[0] = max(clock[0], table.next_deadline or clock[0])
        LOG.extend((ev, clock[0]) for ev in table.advance(clock[0]))
    for seat in range(1, 8):
        area = "player" if seat % 2 else "banker"
        for chip in (5, 2, 1):
            LOG.extend((ev, clock[0]) for ev in table.handle(PlaceChip(seat, area, chip), clock[0]))
            sent += 1
        chip = PlaceChip(seat, AREAS[2 + seat % 3], 1)
        LOG.extend((ev, clock[0]) for ev in table.handle(chip, clock[0]))
        sent += 1
    while table.phase == "betting":
        clock[0] = table.next_deadline or clock[0]
        LOG.extend((ev, clock[0]) for ev in table.advance(clock[0]))
    # Seat 1 controls the Player hand and seat 2 the Banker hand (equal stakes: first to bet).
    while table.phase == "squeeze":
        opened = False
        for hand, user_id in (("player", 1), ("banker", 2)):
            if try_command(table, OpenCard(user_id, hand), clock[0]):
                sent += 1
                opened = True
        if not opened:
            clock[0] = table.next_deadline or clock[0]
            LOG.extend((ev, clock[0]) for ev in table.advance(clock[0]))
    return sent


def main() -> None:
    """Run the benchmark and print the results."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=2000)
    parser.add_argument("--builds", help="pure,compiled: each build in its own process")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()
    if args.builds:
        side_by_side(args.builds.split(","), args.rounds)
        return
    rows = measure(args.rounds)
    if args.json:
        print(json.dumps(rows))
        return
    print("| what | figure |")
    print("|---|---|")
    for what, (value, unit) in rows.items():
        print(f"| {what} | {value:,.1f}{unit} |")


def side_by_side(builds: list[str], rounds: int) -> None:
    """Each build's figures in one table, and the compiled build's against the pure one. A
    build named more than once runs again, in turn with the others, and keeps its best."""
    from baccarat.compiled import SWITCH, stale

    if "compiled" in builds and stale() is not None:
        sys.exit(f"bench_table: {stale()}")
    runs: dict[str, list[dict[str, list[Any]]]] = {}
    for build in builds:
        env = {**os.environ, SWITCH: "1" if build == "compiled" else "0"}
        argv = [sys.executable, __file__, "--rounds", str(rounds), "--json"]
        out = subprocess.run(argv, env=env, capture_output=True, text=True, check=True).stdout
        runs.setdefault(build, []).append(json.loads(out))
    names = list(runs)
    first = runs[names[0]][0]
    print("| what | " + " | ".join(names) + " | ratio |")
    print("|---|" + "---|" * (len(names) + 1))
    for what, (_, unit) in first.items():
        # A rate (no unit) is best at its highest, a time at its lowest.
        pick = max if not unit else min
        best = [pick(run[what][0] for run in runs[b]) for b in names]
        cells = [f"{value:,.1f}{unit}" for value in best]
        ratio = best[-1] / best[0] if best[0] else 0.0
        print(f"| {what} | " + " | ".join(cells) + f" | {ratio:.2f} |")


def measure(rounds: int) -> dict[str, tuple[float, str]]:
    """Play ``rounds`` and time the parts: each figure with its unit."""
    args = argparse.Namespace(rounds=rounds)

    table, clock = new_table()
    play_round(table, clock)
    start = time.perf_counter()
    commands = 0
    for _ in range(args.rounds):
        LOG.clear()
        commands += play_round(table, clock)
    elapsed = time.perf_counter() - start

    n = 200
    t0 = time.perf_counter()
    for _ in range(n):
        for ev, at in LOG:
            event_wire(ev, at)
    wire_round = (time.perf_counter() - t0) / n
    seated = [100, *range(1, 8)]
    t0 = time.perf_counter()
    for _ in range(n):
        for uid in seated:
            personal(table, uid, clock[0])
    personal_all = (time.perf_counter() - t0) / n

    # Mid-betting: every bettor has chips down, betting open (the keys' cover answers).
    betting, at = new_table()
    play_round(betting, at)
    while betting.phase != "betting":
        at[0] = max(at[0], betting.next_deadline or at[0])
        betting.advance(at[0])
    for seat in range(1, 8):
        betting.handle(PlaceChip(seat, "player" if seat % 2 else "banker", 5), at[0])
    t0 = time.perf_counter()
    bettors = range(1, 8)
    for _ in range(n):
        personal_keys(betting, bettors, at[0])
    keys_betting = (time.perf_counter() - t0) / n

    viewers = {"dealer": 100, "bettor": 1, "spectator": None}
    view_times = {}
    for name, uid in viewers.items():
        n = 5000
        t0 = time.perf_counter()
        for _ in range(n):
            view(table, uid, clock[0])
        view_times[name] = (time.perf_counter() - t0) / n

    rows: dict[str, tuple[float, str]] = {
        "rounds/s, commands and timers included": (args.rounds / elapsed, ""),
        "commands/s (chips and opens)": (commands / elapsed, ""),
    }
    for name, t in view_times.items():
        rows[f"one {name} view"] = (t * 1e6, " µs")
    rows[f"a round's {len(LOG)} events made wire data"] = (wire_round * 1e6, " µs")
    rows["the me of all 8 seated users"] = (personal_all * 1e6, " µs")
    rows["the me keys of the 7 bettors, mid-betting"] = (keys_betting * 1e6, " µs")
    return rows


if __name__ == "__main__":
    main()
