"""Memory under idle sockets, and an honest client's latency while another client floods.

    python bench/bench_hostile.py --idle 500 --seconds 10

Starts ``baccarat serve`` in a subprocess (uvloop, a fresh SQLite file, the default command
rate of 50 per second). Opens ``--idle`` sockets that say nothing and reads the server's
resident memory before and after. Then an honest client pings every 10 ms for ``--seconds``,
three times: alone, while one client floods well-formed commands (pings, mostly answered
``rate_limited``), and while one client floods malformed frames (``bad_message``); each
flooder sends batches of 500 frames back to back and reads its answers. Prints the honest
client's round-trip percentiles and the flooder's answered frames per second, as JSON.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import aiohttp

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "server"))

from hostile import Probe, nested
from served import served

from baccarat.client import ws_url


async def _idle(session: aiohttp.ClientSession, base: str, token: str) -> Any:
    ws = await session.ws_connect(ws_url(base), headers={"Authorization": f"Bearer {token}"})
    await ws.receive_json()
    return ws


async def _honest(probe: Probe, seconds: float) -> dict[str, float]:
    rtts: list[float] = []
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        sent = time.perf_counter()
        await probe.mark()
        rtts.append(time.perf_counter() - sent)
        await asyncio.sleep(0.01)
    q = statistics.quantiles(rtts, n=100, method="inclusive")
    return {
        "pings": len(rtts),
        "p50_ms": round(q[49] * 1000, 2),
        "p99_ms": round(q[98] * 1000, 2),
        "max_ms": round(max(rtts) * 1000, 2),
    }


async def _flood(probe: Probe, frames: list[str], stop: asyncio.Event, count: list[int]) -> None:
    while not stop.is_set():
        for f in frames:
            await probe.send(f)
        count[0] += len(await probe.mark()) + 1


async def _measure(
    honest: Probe, flooder: Probe | None, frames: list[str], seconds: float
) -> dict[str, Any]:
    stop = asyncio.Event()
    count = [0]
    task = None
    if flooder is not None:
        task = asyncio.create_task(_flood(flooder, frames, stop, count))
        await asyncio.sleep(0.5)
    started = time.perf_counter()
    before = count[0]
    result: dict[str, Any] = await _honest(honest, seconds)
    if task is not None:
        result["flood_answers_per_s"] = round((count[0] - before) / (time.perf_counter() - started))
        stop.set()
        await task
    return result


async def run(args: argparse.Namespace) -> dict[str, Any]:
    accounts = {"honest": 100_000, "flooder": 100_000} | {f"idle{i}": 0 for i in range(args.idle)}
    with served(accounts, command_rate=50, log_level="warning") as srv:
        await asyncio.sleep(1.0)
        rss_before = srv.rss_mb()
        connector = aiohttp.TCPConnector(limit=0)
        async with aiohttp.ClientSession(connector=connector) as session:
            idle = await asyncio.gather(
                *(_idle(session, srv.base, srv.tokens[f"idle{i}"]) for i in range(args.idle))
            )
            await asyncio.sleep(2.0)
            rss_after = srv.rss_mb()
            honest = await Probe.open(srv.base, srv.tokens["honest"])
            flooder = await Probe.open(srv.base, srv.tokens["flooder"])
            pings = [json.dumps({"type": "ping", "id": i}) for i in range(500)]
            junk = [
                nested(200) if i % 3 == 0 else r'{"type":"ping","id":"\ud800"}' if i % 3 else "{"
                for i in range(500)
            ]
            alone = await _measure(honest, None, [], args.seconds)
            commands = await _measure(honest, flooder, pings, args.seconds)
            malformed = await _measure(honest, flooder, junk, args.seconds)
            rss_end = srv.rss_mb()
            for ws in idle:
                await ws.close()
            await honest.close()
            await flooder.close()
        problems = srv.problems()
    return {
        "idle_sockets": args.idle,
        "rss_mb_before_sockets": round(rss_before, 1),
        "rss_mb_with_idle_sockets": round(rss_after, 1),
        "kb_per_idle_socket": round((rss_after - rss_before) * 1024 / max(1, args.idle), 1),
        "rss_mb_after_floods": round(rss_end, 1),
        "honest_alone": alone,
        "honest_during_command_flood": commands,
        "honest_during_malformed_flood": malformed,
        "server_log_problems": len(problems),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--idle", type=int, default=500)
    parser.add_argument("--seconds", type=float, default=10.0)
    args = parser.parse_args()
    with contextlib.suppress(ImportError):
        import uvloop

        asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())
    print(json.dumps(asyncio.run(run(args)), indent=2))


if __name__ == "__main__":
    main()
