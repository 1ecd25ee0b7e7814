"""What each client of a table receives per round: frames, bytes and snapshots.

    python bench/bench_client_traffic.py [--rounds N]

Runs a server in this process on 127.0.0.1 (a fresh SQLite file, timers sped up), seats a
dealer and three bettors and adds a spectator, all ``baccarat.client`` connections that
record what they receive. Each round every bettor places two chips, and each controller
peels its card twice and opens it. After one warm-up round, it counts per client and round
the frames, their bytes (compact JSON, UTF-8), the snapshots received, and the snapshots a
screen would ask for if it applied only the events ``baccarat/web/js/table.js`` applies in
place (every other event asks for one, bursts within 40 ms merged), as the browser client
did before it kept its view with the reducer. Prints a Markdown table.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import tempfile
import time
from pathlib import Path
from typing import Any

from aiohttp.test_utils import TestServer
from argon2 import PasswordHasher

from baccarat.client import Client, CommandError
from baccarat.server import Server, create_app
from baccarat.server.config import parse_rooms
from baccarat.store import open_store

ROOMS: dict[str, Any] = {
    "server": {"login_attempts_per_ip": 1000},
    "rooms": [{"id": "standard", "name": "Standard", "chip_unit": 100, "tables": ["t1"]}],
    "timers": {"betting": 6.0, "squeeze": 4.0, "result": 2.0, "shuffle": 1.0},
}
SPEED = 4.0
IN_PLACE = {
    "chip_placed",
    "bets_changed",
    "bets_cleared",
    "urged",
    "controllers",
    "card_dealt",
    "squeeze_started",
    "squeeze_progress",
    "card_opened",
    "urge",
    "me",
}
"""The events table.js applied in place before the reducer (the rest asked for a snapshot)."""
BURST = 0.04


def _peel(client: Client, tasks: set[asyncio.Task[None]]) -> None:
    async def open_card(hand: str) -> None:
        with contextlib.suppress(CommandError):
            for progress in (0.3, 0.6):
                await client.squeeze(hand, progress, "br")
            await client.open(hand)

    def on_message(msg: dict[str, Any]) -> None:
        if (
            msg.get("type") == "event"
            and msg["event"] == "squeeze_started"
            and msg["data"]["controller_user_id"] == client.user_id
        ):
            task = asyncio.get_running_loop().create_task(open_card(msg["data"]["hand"]))
            tasks.add(task)
            task.add_done_callback(tasks.discard)

    client.on_message = on_message


def _asked(stamps: list[tuple[float, dict[str, Any]]]) -> int:
    """Snapshots a screen applying only IN_PLACE events would have asked for."""
    asks = 0
    last: float | None = None
    for at, msg in stamps:
        if msg.get("type") != "event" or msg.get("event") in IN_PLACE:
            continue
        if last is None or at - last > BURST:
            asks += 1
        last = at
    return asks


async def run(rounds: int) -> list[tuple[str, float, float, float, float, float]]:
    """Play; return per client and round: frames, bytes, snapshots, the snapshots the old
    screen asked for, and the bytes with those snapshots."""
    folder = tempfile.mkdtemp()
    store = open_store(
        f"sqlite:///{Path(folder) / 'bench.db'}",
        hasher=PasswordHasher(time_cost=1, memory_cost=1024, parallelism=1),
    )
    server = Server(store, parse_rooms(ROOMS), speed=SPEED, shutdown_grace=1.0)
    ts = TestServer(create_app(server), host="127.0.0.1", port=0)
    await ts.start_server()
    base = str(ts.make_url("")).rstrip("/")
    stamps: dict[str, list[tuple[float, dict[str, Any]]]] = {}
    clients: dict[str, Client] = {}
    for name, coins in (
        ("dealer", 10_000_000),
        ("alice", 1_000_000),
        ("bob", 1_000_000),
        ("carol", 1_000_000),
        ("sam", 1_000_000),
    ):
        user = store.create_user(name, "password1", level=50, coins=coins)
        client = await Client.connect(base, store.create_session(user.user_id))
        clients[name] = client
        log: list[tuple[float, dict[str, Any]]] = []
        stamps[name] = log
        client.on_message = None

    def recorder(log: list[tuple[float, dict[str, Any]]], then: Any) -> Any:
        def on(msg: dict[str, Any]) -> None:
            log.append((time.monotonic(), msg))
            if then is not None:
                then(msg)

        return on

    tasks: set[asyncio.Task[None]] = set()
    bettors = [clients[n] for n in ("alice", "bob", "carol")]
    for b in bettors:
        _peel(b, tasks)
    for name, client in clients.items():
        client.on_message = recorder(stamps[name], client.on_message)
    await clients["sam"].watch("t1")
    await clients["dealer"].sit("t1", 0)
    for seat, b in enumerate(bettors, start=1):
        await b.sit("t1", seat)
    plans = [("player", 5), ("banker", 3), ("tie", 1)]
    counts: dict[str, list[float]] = {}
    for played in range(rounds + 1):
        if played == 1:
            # The warm-up round (and joining) is over: count from here.
            start = {n: len(stamps[n]) for n in clients}
        for b in bettors:
            await b.wait_for(lambda m: m.get("event") == "betting_opened", 60)
        for b, (area, chip) in zip(bettors, plans, strict=True):
            await b.bet(area, chip)
            await b.bet(area, 1)
        for b in bettors:
            await b.wait_for(lambda m: m.get("event") == "round_settled", 60)
    await asyncio.sleep(0.3)
    for name in clients:
        seen = stamps[name][start[name] :]
        frames = [m for _, m in seen]
        size = sum(
            len(json.dumps(m, separators=(",", ":"), ensure_ascii=False).encode()) for m in frames
        )
        snaps = sum(1 for m in frames if m.get("type") == "snapshot")
        # A snapshot of this client's view now: what each one the old screen asked for cost.
        view = await clients[name].resync()
        snap = len(json.dumps({"type": "snapshot", "view": view}, separators=(",", ":")).encode())
        asked = _asked(seen) / rounds
        counts[name] = [
            len(frames) / rounds,
            size / rounds,
            snaps / rounds,
            asked,
            size / rounds + asked * snap,
        ]
    for client in clients.values():
        await client.close()
    await ts.close()
    store.close()
    return [(name, *values) for name, values in counts.items()]  # type: ignore[misc]


def main() -> None:
    """Run the benchmark and print the results."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=6)
    args = parser.parse_args()
    rows = asyncio.run(run(args.rounds))
    print(
        "| client | frames/round | bytes/round | snapshots/round "
        "| snapshots the old screen asked for | bytes/round with them |"
    )
    print("|---|---|---|---|---|---|")
    for name, frames, size, snaps, asked, with_asked in rows:
        print(
            f"| {name} | {frames:.1f} | {size:,.0f} | {snaps:.2f} | {asked:.2f} "
            f"| {with_asked:,.0f} |"
        )


if __name__ == "__main__":
    main()
