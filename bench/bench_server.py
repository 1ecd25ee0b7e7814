"""Table fan-out: one table, N WebSocket watchers on 127.0.0.1, events per second delivered.

    python bench/bench_server.py --watchers 1000 --commands 400

Starts ``baccarat serve`` in a subprocess (uvloop, a fresh SQLite file, a betting window long
enough that no timer fires), seats a dealer and a bettor, connects N watchers, then has the
bettor place and clear chips back to back. Every command makes one public event that goes to
every watcher; the bench records when each command was sent and when each watcher got its
event, and prints deliveries per second, latency percentiles and the server's memory.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import aiohttp
from argon2 import PasswordHasher

from baccarat.client import Client, ws_url
from baccarat.store import open_store

ROOMS = """
[server]
login_attempts_per_ip = 100000
command_rate = 100000
[[rooms]]
id = "standard"
chip_unit = 100
tables = ["bench-1"]
[timers]
betting = 3600
"""


def _rss_mb(pid: int) -> float:
    text = Path(f"/proc/{pid}/status").read_text()
    match = re.search(r"VmRSS:\s+(\d+) kB", text)
    return int(match.group(1)) / 1024 if match else float("nan")


async def _watcher(
    session: aiohttp.ClientSession,
    base: str,
    token: str,
    ready: asyncio.Event,
    marks: list[list[float]],
    expect: int,
    start_seq: list[int],
) -> None:
    ws = await session.ws_connect(
        ws_url(base), headers={"Authorization": f"Bearer {token}"}, max_msg_size=0
    )
    await ws.send_str(json.dumps({"type": "table.watch", "id": 1, "table_id": "bench-1"}))
    got: list[float] = []
    marks.append(got)
    async for msg in ws:
        data = json.loads(msg.data)
        kind = data.get("type")
        if kind == "snapshot":
            ready.set()
        elif kind == "event" and not data.get("private") and data["seq"] > start_seq[0] >= 0:
            got.append(time.perf_counter())
            if len(got) >= expect:
                break
    await ws.close()


async def run(args: argparse.Namespace) -> dict[str, float]:
    tmp = Path(tempfile.mkdtemp(prefix="bench-server-"))
    rooms = tmp / "rooms.toml"
    rooms.write_text(ROOMS, encoding="utf-8")
    db = f"sqlite:///{tmp / 'bench.db'}"
    store = open_store(db, hasher=PasswordHasher(time_cost=1, memory_cost=1024, parallelism=1))
    tokens = []
    for i in range(args.watchers + 2):
        coins = 1_000_000 if i == 0 else 100_000
        user = store.create_user(f"u{i}", "password", coins=coins)
        tokens.append(store.create_session(user.user_id))
    store.close()
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "baccarat",
            "serve",
            "--db",
            db,
            "--rooms",
            str(rooms),
            "--port",
            "0",
            "--log-level",
            "warning",
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        base = ""
        while not base:
            line = proc.stdout.readline()
            if not line:
                raise SystemExit("the server did not start")
            found = re.search(r"http://[\d.]+:\d+", line)
            base = found.group(0) if found and "open:" in line else ""
        dealer = await Client.connect(base, tokens[0])
        bettor = await Client.connect(base, tokens[1])
        await dealer.sit("bench-1", 0)
        await bettor.sit("bench-1", 1)
        view = await bettor.resync()
        assert view["phase"] == "betting", view["phase"]
        rss_idle = _rss_mb(proc.pid)

        connector = aiohttp.TCPConnector(limit=0)
        marks: list[list[float]] = []
        start_seq = [-1]
        async with aiohttp.ClientSession(connector=connector) as session:
            readies = []
            tasks = []
            for token in tokens[2:]:
                ready = asyncio.Event()
                readies.append(ready)
                tasks.append(
                    asyncio.create_task(
                        _watcher(session, base, token, ready, marks, args.commands, start_seq)
                    )
                )
            for ready in readies:
                await ready.wait()
            rss_connected = _rss_mb(proc.pid)
            await bettor.resync()
            start_seq[0] = bettor.seq
            sent: list[float] = []
            for i in range(args.commands):
                sent.append(time.perf_counter())
                if i % 2 == 0:
                    await bettor.bet("player", 1)
                else:
                    await bettor.clear()
            await asyncio.gather(*tasks)
            rss_peak = _rss_mb(proc.pid)
        latencies = sorted(got[k] - sent[k] for got in marks for k in range(len(got)))
        first, last = sent[0], max(got[-1] for got in marks)
        deliveries = sum(len(got) for got in marks)
        q = statistics.quantiles(latencies, n=100)
        await dealer.close()
        await bettor.close()
        return {
            "watchers": args.watchers,
            "deliveries": deliveries,
            "deliveries_per_s": deliveries / (last - first),
            "p50_ms": q[49] * 1000,
            "p99_ms": q[98] * 1000,
            "rss_idle_mb": rss_idle,
            "rss_connected_mb": rss_connected,
            "rss_peak_mb": rss_peak,
        }
    finally:
        proc.terminate()
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=30)
        if proc.poll() is None:
            proc.kill()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--watchers", type=int, default=1000)
    parser.add_argument("--commands", type=int, default=400)
    args = parser.parse_args()
    with contextlib.suppress(ImportError):
        import uvloop

        asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())
    result = asyncio.run(run(args))
    print(json.dumps(result, indent=2))
    os._exit(0)


if __name__ == "__main__":
    main()
