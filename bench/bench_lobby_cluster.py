"""The lobby at cluster scale: what one node pays to follow every table's line.

Every node announces the line of each table it runs when it changes, on one Redis channel
every node follows (the refresh every ttl / 3 seconds only keeps the line's key alive). So
each node receives every change of every table of the whole system, whoever looks at it. This bench
measures that cost on this machine: a publisher sends lines of the real shape (a full
table, a dozen beads, its node's URL) at the rate a system of N nodes x T tables makes, and a
follower (``RedisDirectory.lobby_changes`` feeding a real ``Lobby`` that ticks every second,
as a node's does) counts
what it receives and the CPU it spends; Redis's own CPU comes from ``INFO``.

    python bench/bench_lobby_cluster.py [--redis URL] [--tables 1000] [--nodes 1,2,5,10]
        [--seconds 10] [--changes 0.09] [--refresh]

``--changes`` is a table's line changes a second (phases and seats: about 4 in a 45-second
round); ``--refresh`` adds a whole line every ttl / 3 seconds, as the refresh was announced
before only changes were. Figures for more nodes than this machine can publish follow
from the per-message costs, which the runs show to be flat.
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import resource
import time
import uuid
from typing import Any

from redis.asyncio import Redis

from baccarat.cluster import RedisDirectory
from baccarat.cluster.keeper import DEFAULT_TTL
from baccarat.protocol import codec
from baccarat.server.config import load_rooms
from baccarat.server.sockets.hub import Hub
from baccarat.server.tables.lobby import Lobby

REFRESH = 3 / DEFAULT_TTL
"""A line's refresh comes every ttl / 3 seconds: this many times a second."""


def line(node: int, table: int) -> dict[str, Any]:
    """A full table's lobby line as a node publishes it."""
    beads = [
        {
            "winner": "banker",
            "points": 7,
            "player_pair": False,
            "banker_pair": False,
            "natural": False,
        }
    ] * 12
    seats = [{"user_id": 100_000 + table * 8 + s, "name": f"player{table}-{s}"} for s in range(8)]
    return {
        "table_id": f"n{node}-t{table}",
        "room_id": "standard",
        "name": f"Standard {table}",
        "names": {"zh-TW": f"一般區 {table}", "en": f"Standard {table}"},
        "seats": seats,
        "taken": 8,
        "watchers": 1,
        "phase": "betting",
        "shoe_round": 31,
        "commitment": "ab" * 32,
        "beads": beads,
        "queue": 0,
        "good_roads": [{"pattern": "long_banker", "length": 4}],
        "suspended": None,
        "node_id": f"node-{node}",
        "url": f"https://cards.example.com/node/{node}",
    }


def _follow(url: str, prefix: str, seconds: float, ready: Any, out: Any) -> None:
    """The follower's process: a node's lobby feed into a real ``Lobby``."""

    async def main() -> None:
        directory = RedisDirectory.from_url(url, prefix)
        lobby = Lobby(load_rooms(None), Hub(), lambda _t: None)
        lobby.on_local_line = lambda _line: None  # as on a node: its lobby ticks every second
        got = size = 0
        tick_at = time.monotonic() + 1.0
        async with directory.lobby_changes() as changes:
            ready.set()
            start_cpu = resource.getrusage(resource.RUSAGE_SELF)
            end = time.monotonic() + seconds
            async for change in changes:
                lobby.put(change.table_id, change.summary)
                if time.monotonic() >= tick_at:
                    lobby.tick()
                    tick_at += 1.0
                got += 1
                size += len(codec.dumps(change.summary)) if change.summary else 0
                if time.monotonic() >= end:
                    break
            done_cpu = resource.getrusage(resource.RUSAGE_SELF)
        await directory.close()
        cpu = (done_cpu.ru_utime - start_cpu.ru_utime) + (done_cpu.ru_stime - start_cpu.ru_stime)
        out.put({"messages": got, "bytes": size, "cpu_s": cpu})

    asyncio.run(main())


async def _publish(
    url: str, channel: str, rate: float, seconds: float, nodes: int, tables: int
) -> int:
    """Publish lines at ``rate`` a second for ``seconds``, in batches every 10 ms."""
    client = Redis.from_url(url)
    messages = [
        codec.dumps({"table_id": f"n{n}-t{t}", "summary": line(n, t)})
        for n in range(nodes)
        for t in range(tables)
    ]
    sent = 0
    start = time.monotonic()
    while (now := time.monotonic()) - start < seconds:
        due = int((now - start) * rate) - sent
        if due > 0:
            pipe = client.pipeline(transaction=False)
            for i in range(due):
                pipe.publish(channel, messages[(sent + i) % len(messages)])
            await pipe.execute()
            sent += due
        await asyncio.sleep(0.01)
    await client.aclose()
    return sent


async def _redis_cpu(url: str) -> float:
    client = Redis.from_url(url)
    info = await client.info("cpu")
    await client.aclose()
    return float(info["used_cpu_sys"]) + float(info["used_cpu_user"])


def run_one(
    url: str, nodes: int, tables: int, seconds: float, changes: float, refresh: bool
) -> dict[str, Any]:
    prefix = f"bench:{uuid.uuid4().hex}:"
    rate = nodes * tables * (changes + (REFRESH if refresh else 0.0))
    ctx = multiprocessing.get_context("spawn")
    ready, out = ctx.Event(), ctx.Queue()
    follower = ctx.Process(target=_follow, args=(url, prefix, seconds, ready, out))
    follower.start()
    ready.wait(30)
    redis_before = asyncio.run(_redis_cpu(url))
    sent = asyncio.run(_publish(url, f"{prefix}lobby", rate, seconds + 0.5, nodes, tables))
    redis_cpu = asyncio.run(_redis_cpu(url)) - redis_before
    got = out.get(timeout=60)
    follower.join(30)
    span = seconds
    return {
        "nodes": nodes,
        "tables": nodes * tables,
        "asked_per_s": round(rate),
        "sent": sent,
        "received_per_s": round(got["messages"] / span),
        "kb_per_s": round(got["bytes"] / span / 1024),
        "follower_cpu": round(got["cpu_s"] / span, 3),
        "us_per_message": round(1e6 * got["cpu_s"] / max(1, got["messages"]), 1),
        "redis_cpu": round(redis_cpu / (seconds + 0.5), 3),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/0")
    parser.add_argument("--tables", type=int, default=1000, help="tables per node")
    parser.add_argument("--nodes", default="1,2,5,10", help="system sizes to simulate")
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--changes", type=float, default=0.09, help="changes a table a second")
    parser.add_argument("--refresh", action="store_true", help="announce every refresh too")
    args = parser.parse_args()
    print("nodes  tables  lines/s  received/s  KB/s  follower CPU  µs/line  Redis CPU")
    for n in (int(x) for x in args.nodes.split(",")):
        r = run_one(args.redis, n, args.tables, args.seconds, args.changes, args.refresh)
        print(
            f"{r['nodes']:5}  {r['tables']:6}  {r['asked_per_s']:7}  {r['received_per_s']:10}"
            f"  {r['kb_per_s']:4}  {r['follower_cpu']:12}  {r['us_per_message']:7}"
            f"  {r['redis_cpu']:9}"
        )


if __name__ == "__main__":
    main()
