"""The shared directory's cost: lease renewals and seat claims per second, and one keeper tick.

Both back ends: ``LocalDirectory`` (in process) and ``RedisDirectory`` (a Redis on this
machine, over TCP, under a scratch key prefix removed afterwards). Three figures:

- one at a time: renew one lease, await the answer, renew again (one script round trip);
- concurrent: 256 tasks renewing 256 leases at once on one connection pool;
- a keeper tick for a node with 1,000 tables: heartbeat, 1,000 renewals and the seat
  renewals of 7,000 seated users, as ``Keeper.tick`` does every ttl / 3 seconds.

Usage::

    python bench/bench_cluster.py [--redis redis://127.0.0.1:6379/0] [--seconds 3]
"""

from __future__ import annotations

import argparse
import asyncio
import time
import uuid

from redis.asyncio import Redis

from baccarat.cluster import Directory, LocalDirectory, RedisDirectory
from baccarat.cluster.keeper import Keeper


async def _one_at_a_time(d: Directory, seconds: float) -> float:
    token = await d.acquire("bench-1", "node", 60.0)
    assert token is not None
    n = 0
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        for _ in range(100):
            await d.renew("bench-1", "node", token)
        n += 100
    return n / seconds


async def _concurrent(d: Directory, seconds: float) -> float:
    tokens = {}
    for i in range(256):
        token = await d.acquire(f"bench-c{i}", "node", 60.0)
        assert token is not None
        tokens[f"bench-c{i}"] = token
    n = 0
    started = time.perf_counter()
    while time.perf_counter() - started < seconds:
        await asyncio.gather(*(d.renew(t, "node", k) for t, k in tokens.items()))
        n += len(tokens)
    return n / (time.perf_counter() - started)


async def _tick(d: Directory) -> float:
    async def nothing(*_: object) -> None:
        return None

    tables = [f"bench-k{i}" for i in range(1000)]
    seats = {u: tables[u % 1000] for u in range(7000)}
    for user_id, table_id in seats.items():
        await d.claim_seat(user_id, table_id, 1, "node", 60.0)
    keeper = Keeper(
        d, "node", "http://node", tables, on_gained=nothing, on_lost=nothing,
        seats=lambda: seats, ttl=60.0,
    )  # fmt: skip
    await keeper.tick()  # takes the 1,000 leases
    started = time.perf_counter()
    for _ in range(5):
        await keeper.tick()
    return (time.perf_counter() - started) / 5


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/0")
    parser.add_argument("--seconds", type=float, default=3.0)
    args = parser.parse_args()
    prefix = f"bench:{uuid.uuid4().hex}:"
    remote = RedisDirectory.from_url(args.redis, prefix)
    try:
        for name, d in (("local", LocalDirectory()), ("redis", remote)):
            single = await _one_at_a_time(d, args.seconds)
            many = await _concurrent(d, args.seconds)
            tick = await _tick(d)
            print(
                f"{name:6} one at a time {single:10,.0f} renewals/s   "
                f"256 concurrent {many:10,.0f} renewals/s   "
                f"tick (1,000 tables, 7,000 seats) {tick * 1000:8.1f} ms"
            )
    finally:
        await remote.close()
        cleaner = Redis.from_url(args.redis)
        keys = [k async for k in cleaner.scan_iter(match=f"{prefix}*")]
        if keys:
            await cleaner.delete(*keys)
        await cleaner.aclose()


if __name__ == "__main__":
    asyncio.run(main())
