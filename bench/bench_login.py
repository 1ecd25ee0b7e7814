"""Password hashing under a login flood: the server's memory and an honest client's latency.

    python bench/bench_login.py --concurrency 10 --seconds 10
    python bench/bench_login.py --concurrency 50 --set password_hash_queue=64

Starts ``baccarat serve`` in a subprocess (a fresh SQLite file, login and registration limits
raised so the flood reaches the password hasher instead of the rate limiter), registers one
account over HTTP (so its hash has the server's own parameters), then runs C tasks that
each send wrong-password logins for that account back to back, while one honest client asks
``GET /api/me`` every 50 ms. It prints the server's RSS (before, peak and after), the honest
client's latency percentiles, and how the flood was answered (status counts).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import aiohttp

LIMITS = {
    "login_attempts": 1_000_000,
    "login_attempts_per_ip": 1_000_000,
}
ROOMS = """
[[rooms]]
id = "standard"
chip_unit = 100
tables = ["bench-1"]
"""


def _rss_mb(pid: int, field: str = "VmRSS") -> float:
    text = Path(f"/proc/{pid}/status").read_text()
    match = re.search(rf"{field}:\s+(\d+) kB", text)
    return int(match.group(1)) / 1024 if match else float("nan")


def _rooms(extra: list[str]) -> str:
    lines = ["[server]"] + [f"{k} = {v}" for k, v in LIMITS.items()] + extra
    return "\n".join(lines) + "\n" + ROOMS


async def _flood(
    http: aiohttp.ClientSession, base: str, stop: asyncio.Event, statuses: Counter[int]
) -> None:
    while not stop.is_set():
        async with http.post(
            base + "/api/login", json={"username": "victim", "password": "wrong-guess"}
        ) as resp:
            await resp.read()
            statuses[resp.status] += 1
            if resp.status in (429, 503):
                # A refused client backs off as Retry-After asks (at most a second here).
                wait = float(resp.headers.get("Retry-After", "1"))
                await asyncio.sleep(min(wait, 1.0))


async def _honest(
    http: aiohttp.ClientSession, base: str, token: str, stop: asyncio.Event, out: list[float]
) -> None:
    headers = {"Authorization": f"Bearer {token}"}
    while not stop.is_set():
        started = time.perf_counter()
        async with http.get(base + "/api/me", headers=headers) as resp:
            await resp.read()
            assert resp.status == 200, resp.status
        out.append((time.perf_counter() - started) * 1000)
        await asyncio.sleep(0.05)


async def _run(base: str, pid: int, args: argparse.Namespace) -> None:
    async with aiohttp.ClientSession() as http:
        async with http.post(
            base + "/api/register",
            json={"username": "victim", "password": "right-password"},
            headers={"Origin": base},
        ) as resp:
            body = await resp.json()
            assert resp.status == 201, body
            token = body["token"]
        # Warm up: a few honest requests so the baseline is a steady state.
        idle: list[float] = []
        stop = asyncio.Event()
        task = asyncio.create_task(_honest(http, base, token, stop, idle))
        await asyncio.sleep(2.0)
        stop.set()
        await task
        before = _rss_mb(pid)
        stop = asyncio.Event()
        statuses: Counter[int] = Counter()
        busy: list[float] = []
        peak = before

        async def sample() -> None:
            nonlocal peak
            while not stop.is_set():
                peak = max(peak, _rss_mb(pid))
                await asyncio.sleep(0.1)

        conn = aiohttp.TCPConnector(limit=0)
        async with aiohttp.ClientSession(connector=conn) as flood_http:
            tasks = [
                asyncio.create_task(_flood(flood_http, base, stop, statuses))
                for _ in range(args.concurrency)
            ]
            tasks.append(asyncio.create_task(_honest(http, base, token, stop, busy)))
            tasks.append(asyncio.create_task(sample()))
            await asyncio.sleep(args.seconds)
            stop.set()
            await asyncio.gather(*tasks)
        after = _rss_mb(pid)
    busy.sort()

    def pct(p: float) -> float:
        return busy[min(len(busy) - 1, int(p * len(busy)))]

    print(f"concurrency {args.concurrency}, {args.seconds:.0f} s, settings {args.set or '-'}")
    print(
        f"RSS MB: before {before:.0f}, peak {peak:.0f}, after {after:.0f} "
        f"(high-water mark {_rss_mb(pid, 'VmHWM'):.0f})"
    )
    print(
        f"/api/me ms: idle median {statistics.median(idle):.1f}; under the flood "
        f"median {statistics.median(busy):.1f}, p99 {pct(0.99):.1f}, max {busy[-1]:.1f} "
        f"({len(busy)} requests)"
    )
    total = sum(statuses.values())
    print(
        f"flood answers: {dict(sorted(statuses.items()))} "
        f"({total / args.seconds:.1f} logins/s answered)"
    )


def main() -> None:
    """Run the benchmark once and print its figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--concurrency", type=int, default=10)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="another [server] setting of the rooms file (repeatable)",
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        rooms = Path(tmp) / "rooms.toml"
        rooms.write_text(_rooms([s.replace("=", " = ", 1) for s in args.set]))
        cmd = [
            sys.executable,
            "-m",
            "baccarat",
            "serve",
            "--port",
            "0",
            "--db",
            f"sqlite:///{tmp}/bench.db",
            "--rooms",
            str(rooms),
            "--log-level",
            "error",
        ]
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True, env=dict(os.environ))
        try:
            base = ""
            assert proc.stdout is not None
            for line in proc.stdout:
                if line.startswith("open:"):
                    base = line.split()[1].rstrip("/")
                    break
            if not base:
                sys.exit("the server did not start")
            asyncio.run(_run(base, proc.pid, args))
        finally:
            proc.terminate()
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(10)


if __name__ == "__main__":
    main()
