"""The lobby at cluster scale: what one node pays for its lobby as the system grows.

A node's lobby reads, once a second, the pages its own subscribers look at (one script call
per page: the page's index and its lines, ``RedisDirectory.page``), and publishes its own
tables' lines when they change. This bench fills one Redis with the lines of N nodes x T
tables (the real shape: a full table, a dozen beads, its node's URL), has a publisher change
them at the rate such a system makes (through the real publish script), and runs one node's
real ``Lobby`` with subscribers on V distinct pages, ticking every second. It reports the
node's CPU, the bytes Redis sent (nearly all of it the node's pages) and Redis's CPU.

    python bench/bench_lobby_cluster.py [--redis URL] [--tables 1000] [--nodes 1,10,100]
        [--views 20] [--seconds 10] [--changes 0.09]

``--changes`` is a table's line changes a second (phases and seats: about 4 in a 45-second
round). The refresh every ttl / 3 seconds that keeps each line's key alive is Redis's
load, not the node's; ``--refresh`` adds it to the publisher.
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import random
import resource
import time
import uuid
from typing import Any, cast

from redis.asyncio import Redis

from baccarat.cluster import RedisDirectory
from baccarat.cluster.keeper import DEFAULT_TTL
from baccarat.cluster.remote import page_indexes
from baccarat.cluster.scripts import PUBLISH
from baccarat.protocol import codec
from baccarat.server.config import load_rooms
from baccarat.server.sockets.connection import Connection
from baccarat.server.sockets.hub import Hub
from baccarat.server.tables.lobby import Lobby, View
from baccarat.server.tables.outbox import LineOutbox

ROOMS = [r.room_id for r in load_rooms(None).rooms]
ROADS = ["long_banker", "long_player", "ping_pong", "double_jump"]
TTL = 600.0
"""The bench's lines outlive it; the refresh load is simulated, not needed."""


def line(node: int, table: int, phase: str = "betting") -> dict[str, Any]:
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
    roads = [{"pattern": ROADS[table % len(ROADS)], "length": 4}] if table % 3 == 0 else []
    return {
        "table_id": f"n{node}-t{table}",
        "room_id": ROOMS[table % len(ROOMS)],
        "name": f"Standard {table}",
        "names": {"zh-TW": f"一般區 {table}", "en": f"Standard {table}"},
        "seats": seats,
        "taken": 8,
        "watchers": 1,
        "phase": phase,
        "shoe_round": 31,
        "commitment": "ab" * 32,
        "beads": beads,
        "queue": 0,
        "good_roads": roads,
        "suspended": None,
        "node_id": f"node-{node}",
        "url": f"https://cards.example.com/node/{node}",
    }


class _Publisher:
    """Writes lines as the nodes' publish does (the real script), pipelined."""

    def __init__(self, client: Redis, prefix: str) -> None:
        self.client = client
        self.prefix = prefix
        self.script = client.register_script(PUBLISH)

    async def add(self, pipe: Any, node: int, table: int, phase: str, ttl: float) -> None:
        body = line(node, table, phase)
        table_id = body["table_id"]
        p = self.prefix
        await self.script(
            keys=[f"{p}lease:{table_id}", f"{p}line:{table_id}", f"{p}lines"],
            args=[
                f"node-{node}",
                round(ttl * 1000),
                table_id,
                codec.dumps(body),
                node * 100_000 + table,
                f"{p}page:",
                codec.dumps(page_indexes(body)),
            ],
            client=pipe,
        )

    async def fill(self, nodes: int, tables: int) -> None:
        """Every table leased to its node and its line published."""
        for n in range(nodes):
            pipe = self.client.pipeline(transaction=False)
            for t in range(tables):
                pipe.hset(f"{self.prefix}lease:n{n}-t{t}", mapping={"node": f"node-{n}"})
                await self.add(pipe, n, t, "betting", TTL)
            await pipe.execute()


async def _publish(
    url: str, prefix: str, rate: float, seconds: float, nodes: int, tables: int
) -> int:
    """Change lines at ``rate`` a second for ``seconds``, in batches every 10 ms."""
    client = Redis.from_url(url)
    publisher = _Publisher(client, prefix)
    rng = random.Random(7)
    sent = 0
    start = time.monotonic()
    while (now := time.monotonic()) - start < seconds:
        due = int((now - start) * rate) - sent
        if due > 0:
            pipe = client.pipeline(transaction=False)
            for _ in range(due):
                phase = rng.choice(["betting", "dealing", "squeeze", "result"])
                await publisher.add(pipe, rng.randrange(nodes), rng.randrange(tables), phase, TTL)
            await pipe.execute()
            sent += due
        await asyncio.sleep(0.01)
    await client.aclose()
    return sent


class _Subscriber:
    """A subscriber's socket: counts what the lobby sends it."""

    def __init__(self) -> None:
        self.frames = 0
        self.bytes = 0

    def send(self, text: str) -> None:
        self.frames += 1
        self.bytes += len(text)

    def send_frame(self, frame: bytes) -> None:
        self.frames += 1
        self.bytes += len(frame)


def _views(count: int) -> list[View]:
    """``count`` distinct pages, as a node's users spread over the lobby: the first pages of
    every room and of all rooms, then good-road filters."""
    views: list[View] = []
    for page in range(count):
        for room in [None, *ROOMS]:
            views.append(View(room, page))
            views.append(View(room, page, ROADS[page % len(ROADS)]))
    return views[:count]


def _node(url: str, prefix: str, views: int, seconds: float, ready: Any, out: Any) -> None:
    """One node's lobby: a real ``Lobby`` on the shared Redis, ticking every second."""

    async def main() -> None:
        directory = RedisDirectory.from_url(url, prefix)
        lobby = Lobby(load_rooms(None), Hub(), lambda _t: None, LineOutbox(), directory)
        subscribers = [_Subscriber() for _ in range(views)]
        for sub, view in zip(subscribers, _views(views), strict=True):
            await lobby.subscribe(cast(Connection, sub), view)
            sub.frames = sub.bytes = 0  # only what the ticks send counts
        ready.set()
        start_cpu = resource.getrusage(resource.RUSAGE_SELF)
        ticks = 0
        began = time.monotonic()
        while time.monotonic() - began < seconds:
            await asyncio.sleep(1.0)
            await lobby.tick()
            ticks += 1
        done_cpu = resource.getrusage(resource.RUSAGE_SELF)
        await directory.close()
        cpu = (done_cpu.ru_utime - start_cpu.ru_utime) + (done_cpu.ru_stime - start_cpu.ru_stime)
        out.put(
            {
                "ticks": ticks,
                "cpu_s": cpu,
                "frames": sum(s.frames for s in subscribers),
                "sent_bytes": sum(s.bytes for s in subscribers),
            }
        )

    asyncio.run(main())


async def _redis_stats(url: str) -> tuple[float, int]:
    client = Redis.from_url(url)
    cpu = await client.info("cpu")
    stats = await client.info("stats")
    await client.aclose()
    used = float(cpu["used_cpu_sys"]) + float(cpu["used_cpu_user"])
    return used, int(stats["total_net_output_bytes"])


async def _clear(url: str, prefix: str) -> None:
    client = Redis.from_url(url)
    async for key in client.scan_iter(match=f"{prefix}*", count=10_000):
        await client.unlink(key)
    await client.aclose()


def run_one(
    url: str, nodes: int, tables: int, views: int, seconds: float, changes: float, refresh: bool
) -> dict[str, Any]:
    prefix = f"bench:{uuid.uuid4().hex}:"
    client = Redis.from_url(url)
    asyncio.run(_Publisher(client, prefix).fill(nodes, tables))
    rate = nodes * tables * (changes + (3 / DEFAULT_TTL if refresh else 0.0))
    ctx = multiprocessing.get_context("spawn")
    ready, out = ctx.Event(), ctx.Queue()
    node = ctx.Process(target=_node, args=(url, prefix, views, seconds, ready, out))
    node.start()
    ready.wait(60)
    cpu_before, bytes_before = asyncio.run(_redis_stats(url))
    sent = asyncio.run(_publish(url, prefix, rate, seconds + 0.5, nodes, tables))
    cpu_after, bytes_after = asyncio.run(_redis_stats(url))
    got = out.get(timeout=120)
    node.join(30)
    asyncio.run(_clear(url, prefix))
    span = seconds + 0.5
    return {
        "nodes": nodes,
        "tables": nodes * tables,
        "changes_per_s": round(sent / span),
        "views": views,
        "node_cpu": round(got["cpu_s"] / got["ticks"], 4),
        "node_reads_kb_per_s": round((bytes_after - bytes_before) / span / 1024),
        "subscribers_kb_per_s": round(got["sent_bytes"] / got["ticks"] / 1024, 1),
        "redis_cpu": round((cpu_after - cpu_before) / span, 3),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/0")
    parser.add_argument("--tables", type=int, default=1000, help="tables per node")
    parser.add_argument("--nodes", default="1,10,100", help="system sizes to simulate")
    parser.add_argument(
        "--views", type=int, default=20, help="distinct pages the node's users view"
    )
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--changes", type=float, default=0.09, help="changes a table a second")
    parser.add_argument("--refresh", action="store_true", help="publish every refresh too")
    args = parser.parse_args()
    print(
        "nodes  tables  changes/s  pages  node CPU  Redis sent KB/s  to subscribers KB/s  Redis CPU"
    )
    for n in (int(x) for x in args.nodes.split(",")):
        r = run_one(
            args.redis, n, args.tables, args.views, args.seconds, args.changes, args.refresh
        )
        print(
            f"{r['nodes']:5}  {r['tables']:6}  {r['changes_per_s']:9}  {r['views']:5}"
            f"  {r['node_cpu']:8}  {r['node_reads_kb_per_s']:15}  {r['subscribers_kb_per_s']:19}"
            f"  {r['redis_cpu']:9}"
        )


if __name__ == "__main__":
    main()
