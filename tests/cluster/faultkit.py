"""A real cluster under faults: ``baccarat serve`` nodes, bots, Redis and PostgreSQL of its own.

``FaultRun`` starts a private PostgreSQL cluster and a private Redis (``services``), two
nodes (``baccarat serve --redis``, each reaching Redis through a relay of its own that can
be cut to partition that node from Redis but not from the database), and one ``baccarat
bots`` process per table. ``inject`` waits for a table to reach the phase asked (betting,
or mid-squeeze), injects one fault, waits until the system has recovered, and measures:

- takeover: seconds from the fault until another node held the table in the database (a
  node killed, frozen or cut off), or until its node held it again (Redis restarted);
- voided: rounds voided since the fault, per table (at most the round in flight);
- coins: every wallet and escrow summed, before and after (nothing created or lost);
- seats: every user seated before the fault seated again (within the reconnect grace).

Used by ``tests/cluster/test_cluster_faults.py`` (a short run in CI) and
``bench/faults.py`` (the long run whose figures are in docs/reliability.md).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import signal
import subprocess
import sys
import threading
import time
import urllib.request
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import sqlalchemy as sa

from baccarat.store import Store, open_store
from baccarat.store import schema as s
from services import OwnPostgres, OwnRedis
from serving import free_port, start_serve

FAULTS = ("kill", "stop", "redis", "postgres", "partition")
OUTAGES = {"postgres-20s": 20.0, "redis-10s": 10.0}
FAILOVER = "failover"
FAILOVER_DOWN = 3.0
"""Seconds the primary stays down before its standby is promoted: longer than a table goes
between two writes, so that tables wait for the database."""
"""The long outages (seconds the part stays down): nothing is taken over, nothing voided, no
request answered 5xx, and every seat kept."""
PHASES = ("betting", "squeeze")
TABLES = ("t1", "t2")
BOTS_PER_TABLE = 3
SPEED = 4.0
"""The long run's timers: every one divided by this (a round takes about 8 s)."""
GRACE = 15.0
"""The long run's reconnect grace, in seconds as the nodes count them (the rooms file's
default, 60 s, at ``SPEED``)."""
LEASE_TTL = 3.0


class Relay:
    """A TCP relay to Redis for one node; ``cut`` drops its connections and refuses new ones."""

    def __init__(self, target: int) -> None:
        self.target = target
        self.port = free_port()
        self.loop = asyncio.new_event_loop()
        self._server: asyncio.Server | None = None
        self._writers: set[asyncio.StreamWriter] = set()
        self._cuts = 0
        self._thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self._thread.start()
        self.mend()

    def _call(self, coro: Any) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(10)

    def mend(self) -> None:
        """Accept connections again."""
        self._call(self._listen())

    def cut(self) -> None:
        """Close every connection and stop listening."""
        self._call(self._cut())

    async def _listen(self) -> None:
        self._server = await asyncio.start_server(self._pipe, "127.0.0.1", self.port)

    async def _cut(self) -> None:
        self._cuts += 1
        if self._server is not None:
            self._server.close()
            self._server = None
        for w in list(self._writers):
            w.transport.abort()
        self._writers.clear()

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        cuts = self._cuts
        try:
            up_r, up_w = await asyncio.open_connection("127.0.0.1", self.target)
        except OSError:
            writer.transport.abort()
            return
        if self._server is None or self._cuts != cuts:
            # Cut while this connection was being made: it must not outlive the cut.
            writer.transport.abort()
            up_w.transport.abort()
            return
        self._writers.update((writer, up_w))

        async def copy(r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
            with contextlib.suppress(OSError, asyncio.IncompleteReadError):
                while data := await r.read(65536):
                    w.write(data)
                    await w.drain()
            w.transport.abort()

        await asyncio.gather(copy(reader, up_w), copy(up_r, writer))
        self._writers.discard(writer)
        self._writers.discard(up_w)

    def close(self) -> None:
        """Stop the relay's thread and close its loop."""
        self.cut()
        self._call(self._cancel_all())
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(5)
        self.loop.close()

    async def _cancel_all(self) -> None:
        tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


@dataclass
class Node:
    """One ``baccarat serve`` process and how to reach it."""

    name: str
    port: int
    relay: Relay
    log: Path
    proc: subprocess.Popen[str] | None = None
    public: str = ""
    """Its public URL behind the run's proxy (its own address when there is none)."""

    @property
    def url(self) -> str:
        """The node's own address."""
        return f"http://127.0.0.1:{self.port}"


@dataclass
class Outcome:
    """What one fault did."""

    fault: str
    phase: str
    table: str
    takeover: float | None
    voided: dict[str, int]
    coins_lost: int
    seated_again: bool
    refused_late: int = 0
    problems: list[str] = field(default_factory=list)
    followed: float | None = None
    """Seconds until the table's bots were back in their seats on the new node, found while
    the old node was still frozen (the stop fault)."""
    back_after: float | None = None
    """Seconds from the part's return until every user sat again (the long outages); for a
    failover, from the promotion until every table had settled a round on the new primary."""
    resumed: dict[str, float] | None = None
    """A failover: seconds from the promotion until each table whose write waited for the
    database took it (its node logs ``table resumed``)."""


def two_hosts(primary: OwnPostgres, standby: OwnPostgres) -> str:
    """libpq's URL naming the primary and its standby: connections go to whichever takes
    writes."""
    hosts = f"127.0.0.1:{primary.port},127.0.0.1:{standby.port}"
    return f"postgresql://postgres@{hosts}/postgres?target_session_attrs=read-write"


def _get(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=3) as resp:
        return json.load(resp)


class FaultRun:
    """The cluster, its bots, and the faults injected into it."""

    def __init__(
        self,
        workdir: Path,
        pg: OwnPostgres,
        redis: OwnRedis,
        *,
        speed: float = SPEED,
        grace: float = GRACE,
        proxied: bool = False,
        nodes: int = 2,
        standby: OwnPostgres | None = None,
    ) -> None:
        self.dir = workdir
        self.proxied = proxied
        """Clients know only one public address: the shipped HAProxy file in front of the
        nodes, each node at its own path there."""
        self.proxy_port = free_port()
        self._stack = contextlib.ExitStack()
        self.speed = speed
        self.grace = grace
        """The reconnect grace in seconds: a user away longer loses the seat."""
        self.pg = pg
        self.standby = standby
        """A streaming replica of ``pg``: the nodes then name both hosts in one URL, and
        ``failover`` promotes it."""
        self.db = pg.url if standby is None else two_hosts(pg, standby)
        self.redis = redis
        self.prefix = f"faults:{uuid.uuid4().hex}:"
        self.store: Store = open_store(self.db)
        self.rooms = workdir / "rooms.toml"
        self.rooms.write_text(
            "[server]\nstart_coins = 0\n\n"
            f"[timers]\nreconnect_grace = {grace * speed}\n\n"
            '[[rooms]]\nid = "standard"\nname = "Standard"\nchip_unit = 100\n'
            f"bettor_floor = 1000\ndealer_floor = 35000\ntables = {json.dumps(list(TABLES))}\n"
        )
        self.nodes = [
            Node(name, free_port(), Relay(redis.port), workdir / f"{name}.log")
            for name in "ABC"[:nodes]
        ]
        if proxied:
            for node in self.nodes:
                node.public = f"{self.public}/node/{node.name.lower()}"
        self.bots: list[subprocess.Popen[bytes]] = []
        self.logs: list[IO[str]] = []
        self.users: list[int] = []

    @property
    def public(self) -> str:
        """The one public address (the proxy's), when the run has one."""
        return f"http://127.0.0.1:{self.proxy_port}"

    # -- start and stop ---------------------------------------------------------------

    def _proxy(self) -> None:
        """The shipped HAProxy file in front of the nodes (node c's place left empty)."""
        from haproxy import TLS_BIND, configure, running

        ports = [n.port for n in self.nodes] + [free_port()] * (3 - len(self.nodes))
        swaps = {f"127.0.0.1:800{i + 1}": f"127.0.0.1:{port}" for i, port in enumerate(ports)}
        config = configure(
            self.dir,
            {
                TLS_BIND: f"bind 127.0.0.1:{self.proxy_port}",
                "bind :80": f"bind 127.0.0.1:{free_port()}",
                **swaps,
            },
        )
        self._stack.enter_context(running(config, self.proxy_port))

    def _bot_urls(self) -> list[str]:
        # Behind the proxy the bots are told the public address only, as a player would be.
        if self.proxied:
            return ["--url", self.public]
        others = [arg for n in self.nodes[1:] for arg in ("--other-node", n.url)]
        return ["--url", self.nodes[0].url, *others]

    def start(self) -> None:
        """Accounts, both nodes, one bot crew per table (and the proxy, when proxied)."""
        for t in TABLES:
            lines = []
            for i in range(BOTS_PER_TABLE):
                name = f"{t}bot{i}"
                user = self.store.create_user(name, "bot-password", level=50, coins=1_000_000)
                self.users.append(user.user_id)
                lines.append(f"{name}:bot-password")
            (self.dir / f"{t}.accounts").write_text("\n".join(lines) + "\n")
        if self.proxied:
            self._proxy()
        for node in self.nodes:
            self.start_node(node)
        for t in TABLES:
            self.bots.append(
                subprocess.Popen(
                    [
                        sys.executable, "-m", "baccarat", "bots", *self._bot_urls(),
                        "--accounts",
                        str(self.dir / f"{t}.accounts"), "--count", str(BOTS_PER_TABLE),
                        "--table", t, "--processes", "1", "--strategy", "flat",
                        "--log-level", "info",
                    ],
                    stdout=subprocess.DEVNULL,
                    stderr=self._log(f"{t}.bots.log"),
                )
            )  # fmt: skip
        self.wait(lambda: all(len(self.seated(t)) == BOTS_PER_TABLE for t in TABLES), "bots")

    def _log(self, name: str) -> IO[str]:
        # A file the bots log to (closed with the run).
        f = (self.dir / name).open("w")
        self.logs.append(f)
        return f

    def start_node(self, node: Node) -> None:
        """Start (or restart) a node and wait until it answers."""
        node.proc = start_serve(
            "--db", self.db, "--rooms", str(self.rooms), "--speed", str(self.speed),
            "--redis", f"redis://127.0.0.1:{node.relay.port}/0",
            "--redis-prefix", self.prefix, "--node-id", node.name,
            "--public-url", node.public or node.url, "--lease-ttl", str(LEASE_TTL),
            "--log-level", "info", "--keys", str(self.dir / "keys"),
            port=node.port, log=node.log, healthy=False, limit=90.0,
        ).proc  # fmt: skip

    def close(self) -> None:
        """Stop bots and nodes (SIGTERM: rounds in play finish or are voided)."""
        for p in self.bots:
            p.send_signal(signal.SIGTERM)
        for node in self.nodes:
            if node.proc is not None and node.proc.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    node.proc.send_signal(signal.SIGCONT)
                node.proc.send_signal(signal.SIGTERM)
        for p in [*self.bots, *(n.proc for n in self.nodes if n.proc is not None)]:
            try:
                p.wait(30)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        for node in self.nodes:
            node.relay.close()
        self._stack.close()
        for f in self.logs:
            f.close()
        self.store.close()

    # -- looking -----------------------------------------------------------------------

    @staticmethod
    def wait(predicate: Any, what: str, limit: float = 90.0) -> float:
        """Poll until truthy; the seconds it took (a bound on a hang, not a speed test)."""
        start = time.monotonic()
        while time.monotonic() - start < limit:
            with contextlib.suppress(OSError, ValueError, KeyError, sa.exc.OperationalError):
                if predicate():
                    return time.monotonic() - start
            time.sleep(0.05)
        raise AssertionError(f"gave up waiting for {what}")

    def holder(self, table: str) -> tuple[int, str]:
        """The table's epoch and the node that holds it, as the database says."""
        with self.store.engine.connect() as conn:
            row = conn.execute(
                sa.select(s.table_epochs.c.epoch, s.table_epochs.c.node_id).where(
                    s.table_epochs.c.table_id == table
                )
            ).first()
        return (0, "") if row is None else (int(row.epoch), str(row.node_id))

    def lines(self) -> dict[str, dict[str, Any]]:
        """Every table's lobby line, from the first node that answers."""
        for node in self.nodes:
            if node.proc is None or node.proc.poll() is not None:
                continue
            with contextlib.suppress(OSError, ValueError):
                return {t["table_id"]: t for t in _get(node.url + "/api/lobby")["tables"]}
        return {}

    def seated(self, table: str) -> set[int]:
        """Who sits at the table, as the node that runs it says."""
        owner = self.holder(table)[1]
        node = next(n for n in self.nodes if n.name == owner)
        line = {t["table_id"]: t for t in _get(node.url + "/api/lobby")["tables"]}[table]
        return {seat["user_id"] for seat in line["seats"] if seat is not None}

    def coins(self) -> int:
        """Every coin held by users, the house and escrow (minus the mint: it never moves)."""
        total = self.store.total_coins()
        assert total["total"] == 0, total
        return total["users"] + total["house"] + total["escrow"]

    def voided_since(self, since: float) -> dict[str, int]:
        """Rounds voided since ``since`` (a wall-clock time), per table."""
        with self.store.engine.connect() as conn:
            rows = conn.execute(
                sa.select(s.rounds.c.table_id, sa.func.count())
                .where(s.rounds.c.status == "voided", s.rounds.c.closed_at >= since)
                .group_by(s.rounds.c.table_id)
            )
            return {str(t): int(n) for t, n in rows}

    def rounds_settled(self, table: str) -> int:
        """How many of the table's rounds are settled."""
        with self.store.engine.connect() as conn:
            return int(
                conn.scalar(
                    sa.select(sa.func.count()).where(
                        s.rounds.c.table_id == table, s.rounds.c.status == "settled"
                    )
                )
                or 0
            )

    def refused(self, node: Node) -> int:
        """Writes the database refused the node for a stale epoch (its log says so)."""
        text = node.log.read_text(errors="replace")
        return text.count("table taken over") + text.count("another node has taken it over")

    # -- faults ------------------------------------------------------------------------

    def node_of(self, name: str) -> Node:
        """The node called ``name``."""
        return next(n for n in self.nodes if n.name == name)

    def inject(self, fault: str, phase: str, table: str) -> Outcome:
        """Wait for ``table`` to reach ``phase``, inject ``fault``, wait for the recovery."""
        self.wait(lambda: self.lines()[table]["phase"] == phase, f"{table} in {phase}")
        epoch, owner = self.holder(table)
        node = self.node_of(owner)
        before = {t: self.seated(t) for t in TABLES}
        coins = self.coins()
        refused = self.refused(node)
        since = time.time()
        start = time.monotonic()
        assert node.proc is not None
        followed: float | None = None
        if fault == "kill":
            node.proc.send_signal(signal.SIGKILL)
            node.proc.wait()
            self.wait(lambda: self.holder(table)[1] not in ("", owner), "takeover")
            took: float | None = time.monotonic() - start
            self.start_node(node)
        elif fault == "stop":
            node.proc.send_signal(signal.SIGSTOP)
            self.wait(lambda: self.holder(table)[1] not in ("", owner), "takeover")
            took = time.monotonic() - start
            # Frozen until the table's bots found its new node by themselves (or past the
            # grace, when their seats would be gone).
            with contextlib.suppress(AssertionError):
                self.wait(
                    lambda: self.back_at(table, node.public or node.url, since) is not None,
                    "the bots at the new node",
                    limit=self.grace + LEASE_TTL,
                )
            followed = self.back_at(table, node.public or node.url, since)
            # Frozen on past the lease and the reconnect grace: the seats must not depend on
            # the node ever waking.
            time.sleep(max(0.0, start + LEASE_TTL + self.grace + 1.0 - time.monotonic()))
            node.proc.send_signal(signal.SIGCONT)
        elif fault == "partition":
            node.relay.cut()
            self.wait(lambda: self.holder(table)[1] not in ("", owner), "takeover")
            took = time.monotonic() - start
            node.relay.mend()
        elif fault == "redis":
            self.redis.restart()
            self.wait(lambda: self.holder(table)[0] > epoch, "the lease taken again")
            took = time.monotonic() - start
        elif fault == "postgres":
            self.pg.stop()
            time.sleep(1.0)
            self.pg.start()
            took = None
        else:
            raise ValueError(f"unknown fault {fault!r}")
        problems: list[str] = []
        # Every user seated before sits again, and the table plays on: a round settles.
        settled = self.rounds_settled(table)
        try:
            self.wait(
                lambda: all(before[t] <= self.seated(t) for t in TABLES),
                "every user seated again",
                limit=self.grace + LEASE_TTL + 10,
            )
            seated_again = True
        except AssertionError:
            seated_again = False
            missing = {t: before[t] - self.seated(t) for t in TABLES}
            problems.append(f"not seated again: {missing}; {self.why_unseated(missing)}")
        self.wait(lambda: self.rounds_settled(table) > settled, "a round settled after the fault")
        voided = self.voided_since(since - 1.0)
        lost = coins - self.coins()
        for t, n in voided.items():
            if n > 1:
                problems.append(f"{n} rounds voided at {t}")
        if fault in ("redis", "postgres") and voided:
            problems.append(f"rounds voided with no takeover: {voided}")
        # A node that recovers gets its share of the tables back (the placement), each at the
        # end of a round: the table may be back on it by now, with nothing voided. Once it
        # has, every node runs an even share of the tables, within one.
        try:
            self.wait(self.spread_evenly, "the tables spread within one of even", limit=60)
        except AssertionError:
            problems.append(f"tables not spread: {self.loads()}")
        return Outcome(
            fault,
            phase,
            table,
            took,
            voided,
            lost,
            seated_again,
            self.refused(node) - refused,
            problems,
            followed if fault == "stop" else None,
        )

    def why_unseated(self, missing: dict[str, set[int]]) -> str:
        """What the nodes and the bots logged of the users not seated again."""
        users = {u for m in missing.values() for u in m}
        lines = []
        for node in self.nodes:
            for line in node.log.read_text(errors="replace").splitlines():
                with contextlib.suppress(ValueError):
                    rec = json.loads(line)
                    if rec.get("msg") == "seat freed" and rec.get("user_id") in users:
                        lines.append(f"{node.name}: {rec}")
        for t, m in missing.items():
            if m:
                tail = (self.dir / f"{t}.bots.log").read_text(errors="replace").splitlines()
                lines += [f"{t} bots: {line}" for line in tail[-8:]]
        return " | ".join(lines) or "nothing logged"

    def loads(self) -> dict[str, int]:
        """How many tables each node runs, as the database's epochs say."""
        held = [self.holder(t)[1] for t in TABLES]
        return {n.name: held.count(n.name) for n in self.nodes}

    def spread_evenly(self) -> bool:
        """Whether every node runs an even share of the tables, within one."""
        loads = self.loads().values()
        return max(loads) - min(loads) <= 1

    def server_errors(self, marks: dict[str, int]) -> tuple[int, list[str]]:
        """Requests answered with a server error other than 503 (an outage's answer), and
        the message of each traceback, in the nodes' logs past ``marks`` (each log's size
        when the fault began)."""
        errors = 0
        tracebacks: list[str] = []
        for node in self.nodes:
            with node.log.open("rb") as f:
                f.seek(marks.get(node.name, 0))
                text = f.read().decode(errors="replace")
            last = ""
            for line in text.splitlines():
                if line.startswith("Traceback (most recent call last)"):
                    tracebacks.append(last[:160])
                with contextlib.suppress(ValueError):
                    rec = json.loads(line)
                    last = f"{node.name}: {rec.get('msg')}"
                    status = int(rec.get("status", 0)) if rec.get("msg") == "http" else 0
                    errors += status >= 500 and status != 503
        return errors, tracebacks

    def outage(self, kind: str, table: str) -> Outcome:
        """Keep PostgreSQL or Redis down for ``OUTAGES[kind]`` seconds under the bots, then
        bring it back: nothing taken over or voided, no 5xx, no traceback, every seat kept."""
        marks = {n.name: n.log.stat().st_size for n in self.nodes}
        before = {t: self.seated(t) for t in TABLES}
        coins = self.coins()
        since = time.time()
        start = time.monotonic()
        if kind.startswith("postgres"):
            self.pg.stop()
            time.sleep(OUTAGES[kind])
            self.pg.start()
        else:
            assert self.redis.proc is not None
            self.redis.kill()
            time.sleep(OUTAGES[kind])
            self.redis.start()
        problems: list[str] = []
        seated_again = True
        try:
            back = self.wait(
                lambda: all(before[t] <= self.seated(t) for t in TABLES),
                "every user seated again",
                limit=self.grace + LEASE_TTL + 30,
            )
        except AssertionError:
            seated_again, back = False, None
            problems.append("not seated again")
        settled = self.rounds_settled(table)
        self.wait(lambda: self.rounds_settled(table) > settled, "a round settled after it")
        voided = self.voided_since(since - 1.0)
        if voided:
            problems.append(f"rounds voided: {voided}")
        errors, tracebacks = self.server_errors(marks)
        if errors:
            problems.append(f"{errors} answers 5xx other than 503")
        if tracebacks:
            seen = sorted(set(tracebacks))
            problems.append(f"{len(tracebacks)} tracebacks, after: {'; '.join(seen[:5])}")
        after = None if back is None else round(time.monotonic() - start - OUTAGES[kind], 2)
        lost = coins - self.coins()
        return Outcome(kind, "-", table, None, voided, lost, seated_again, 0, problems, None, after)

    def failover(self, down: float = FAILOVER_DOWN) -> Outcome:
        """Stop the primary under the bots and promote its standby ``down`` seconds later:
        nothing voided or lost, no answer 5xx but 503, no error logged, every seat
        kept, and every table settles a round again on the promoted standby."""
        assert self.standby is not None
        marks = {n.name: n.log.stat().st_size for n in self.nodes}
        before = {t: self.seated(t) for t in TABLES}
        coins = self.coins()
        since = time.time()
        settled = {t: self.rounds_settled(t) for t in TABLES}
        self.pg.stop()
        time.sleep(down)
        self.standby.promote()
        promoted, promoted_at = time.monotonic(), time.time()
        # Whatever settles now was written on the promoted standby: the primary is gone.
        self.wait(
            lambda: all(self.rounds_settled(t) > settled[t] for t in TABLES),
            "every table to settle a round on the promoted standby",
            limit=60,
        )
        played = round(time.monotonic() - promoted, 2)
        problems: list[str] = []
        try:
            self.wait(lambda: all(before[t] <= self.seated(t) for t in TABLES), "seats", limit=30)
            seated_again = True
        except AssertionError:
            seated_again = False
            problems.append("not seated again")
        voided = self.voided_since(since - 1.0)
        if voided:
            problems.append(f"rounds voided: {voided}")
        errors, tracebacks = self.server_errors(marks)
        if errors:
            problems.append(f"{errors} answers 5xx other than 503")
        logged = tracebacks + self.errors_logged(marks)
        if logged:
            problems.append(f"{len(logged)} errors logged: {'; '.join(sorted(set(logged))[:5])}")
        resumed = {t: round(ts - promoted_at, 2) for t, ts in self.resumed_at(marks, since).items()}
        lost = coins - self.coins()
        return Outcome(
            FAILOVER, "-", "-", None, voided, lost, seated_again, 0, problems, None, played, resumed
        )

    def _records(self, marks: dict[str, int]) -> Iterator[tuple[str, dict[str, Any]]]:
        """Each node's JSON log records past ``marks`` (each log's size at a mark)."""
        for node in self.nodes:
            with node.log.open("rb") as f:
                f.seek(marks.get(node.name, 0))
                text = f.read().decode(errors="replace")
            for line in text.splitlines():
                with contextlib.suppress(ValueError):
                    rec = json.loads(line)
                    if isinstance(rec, dict):
                        yield node.name, rec

    def errors_logged(self, marks: dict[str, int]) -> list[str]:
        """The message of every record logged as an error, or with a traceback, past
        ``marks``."""
        return [
            f"{name}: {rec.get('msg')}"[:160]
            for name, rec in self._records(marks)
            if rec.get("level") in ("error", "critical") or "exc" in rec
        ]

    def resumed_at(self, marks: dict[str, int], since: float) -> dict[str, float]:
        """When each table whose write waited for the database took it, past ``marks``."""
        out: dict[str, float] = {}
        for _, rec in self._records(marks):
            if rec.get("msg") == "table resumed" and float(rec.get("ts", 0)) >= since:
                out.setdefault(str(rec.get("table_id")), float(rec["ts"]))
        return out

    def seats(self) -> dict[int, tuple[str, int]]:
        """Where each user sits (table and seat), as the nodes that run the tables say."""
        out: dict[int, tuple[str, int]] = {}
        for t in TABLES:
            node = self.node_of(self.holder(t)[1])
            line = {x["table_id"]: x for x in _get(node.url + "/api/lobby")["tables"]}[t]
            for i, seat in enumerate(line["seats"]):
                if seat is not None:
                    out[seat["user_id"]] = (t, i)
        return out

    def rolling_restart(self) -> dict[str, Any]:
        """Restart every node in turn as a deployment does (SIGTERM, wait for it to exit,
        start it again), each while a table it runs is mid-squeeze: what it voided, how
        long each stop took, and whether every user kept their seat."""
        since = time.time()
        coins = self.coins()
        before = self.seats()
        stops: list[float] = []
        moved = time.monotonic()
        for node in self.nodes:
            assert node.proc is not None
            mine = [t for t in TABLES if self.holder(t)[1] == node.name]
            if mine:
                self.wait(lambda t=mine[0]: self.lines()[t]["phase"] == "squeeze", "a squeeze")
            start = time.monotonic()
            node.proc.send_signal(signal.SIGTERM)
            node.proc.wait(60)
            stops.append(round(time.monotonic() - start, 2))
            self.wait(
                lambda n=node.name: all(self.holder(t)[1] not in ("", n) for t in TABLES),
                "every table on the other node",
            )
            moved = time.monotonic()
            self.start_node(node)
        settled = {t: self.rounds_settled(t) for t in TABLES}
        self.wait(
            lambda: all(self.rounds_settled(t) > settled[t] for t in TABLES),
            "a round settled at every table after the restarts",
        )
        # Past the reconnect grace since the last table moved (its seats' grace starts there
        # at the latest): a user who did not come back has lost the seat by now.
        time.sleep(max(0.0, moved + self.grace + 1.0 - time.monotonic()))
        return {
            "stop_s": stops,
            "voided": self.voided_since(since - 1.0),
            "coins_lost": coins - self.coins(),
            "seats_before": before,
            "seats_after": self.seats(),
        }

    def back_at(self, table: str, left: str, since: float) -> float | None:
        """Seconds from ``since`` (a wall-clock time) until the last of the table's bots was
        back in its seat on a node other than ``left`` (their logs say), or None."""
        first: dict[int, float] = {}
        for line in (self.dir / f"{table}.bots.log").read_text(errors="replace").splitlines():
            with contextlib.suppress(ValueError):
                rec = json.loads(line)
                back = rec.get("msg") == "bot back in its seat" and rec.get("url") != left
                if back and rec["ts"] >= since:
                    first.setdefault(int(rec["user_id"]), float(rec["ts"]))
        if len(first) < BOTS_PER_TABLE:
            return None
        return round(max(first.values()) - since, 2)

    def audit(self) -> dict[str, Any]:
        """``baccarat audit --json`` on the run's database."""
        out = subprocess.run(
            [sys.executable, "-m", "baccarat", "audit", "--db", self.db, "--json"],
            capture_output=True,
            text=True,
            check=False,
        )
        report: dict[str, Any] = json.loads(out.stdout)
        return report


def summary(outcomes: list[Outcome]) -> dict[str, Any]:
    """The figures of a run, per fault."""
    out: dict[str, Any] = {"faults": len(outcomes), "by_fault": {}}
    for fault in (*FAULTS, *OUTAGES, FAILOVER):
        some = [o for o in outcomes if o.fault == fault]
        if not some:
            continue
        takes = sorted(o.takeover for o in some if o.takeover is not None)
        out["by_fault"][fault] = {
            "injected": len(some),
            "takeover_max_s": round(takes[-1], 2) if takes else None,
            "takeover_median_s": round(takes[len(takes) // 2], 2) if takes else None,
            "rounds_voided": sum(sum(o.voided.values()) for o in some),
            "rounds_voided_max_per_table": max(
                (n for o in some for n in o.voided.values()), default=0
            ),
            "coins_lost": sum(o.coins_lost for o in some),
            "not_seated_again": sum(not o.seated_again for o in some),
            "late_writes_refused": sum(o.refused_late for o in some),
            "bots_followed_s": [o.followed for o in some if o.fault == "stop"] or None,
            "seated_after_s": [o.back_after for o in some if o.back_after is not None] or None,
            "resumed_s": [o.resumed for o in some if o.resumed is not None] or None,
            "problems": [p for o in some for p in o.problems],
        }
    return out
