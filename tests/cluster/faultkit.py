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

The long outages of the shared parts are ``outagekit``'s. Used by
``tests/cluster/test_cluster_faults.py`` (a short run in CI) and ``bench/faults.py`` (the
long run whose figures are in docs/reliability.md).
"""

from __future__ import annotations

import contextlib
import json
import signal
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import IO, Any

from clusterview import ClusterView, Node
from nodelogs import seats_freed
from outcome import Outcome
from tcprelay import Relay

from baccarat.store import Store, open_store
from services import OwnPostgres, OwnRedis
from serving import free_port, start_serve

FAULTS = ("kill", "stop", "redis", "postgres", "partition")
PHASES = ("betting", "squeeze")
TABLES = ("t1", "t2")
BOTS_PER_TABLE = 3
SPEED = 4.0
"""The long run's timers: every one divided by this (a round takes about 8 s)."""
GRACE = 15.0
"""The long run's reconnect grace, in seconds as the nodes count them (the rooms file's
default, 60 s, at ``SPEED``)."""
LEASE_TTL = 3.0


def two_hosts(primary: OwnPostgres, standby: OwnPostgres) -> str:
    """libpq's URL naming the primary and its standby: connections go to whichever takes
    writes."""
    hosts = f"127.0.0.1:{primary.port},127.0.0.1:{standby.port}"
    return f"postgresql://postgres@{hosts}/postgres?target_session_attrs=read-write"


def _takes_connections(port: int) -> bool:
    with socket.socket() as sock:
        sock.settimeout(1.0)
        return sock.connect_ex(("127.0.0.1", port)) == 0


def _end(proc: subprocess.Popen[bytes]) -> None:
    """SIGTERM, and SIGKILL if it has not ended within 15 s."""
    proc.terminate()
    try:
        proc.wait(15)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


class FaultRun(ClusterView):
    """The cluster, its bots, and the faults injected into it."""

    tables: tuple[str, ...] = TABLES
    """The run's tables, each with a crew of ``BOTS_PER_TABLE`` bots (``_crew``)."""

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
            f"bettor_floor = 1000\ndealer_floor = 35000\ntables = {json.dumps(list(self.tables))}\n"
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
        """The shipped HAProxy file in front of the nodes (node c's place left empty), its
        log of every request (level info) in ``haproxy.log``."""
        from haproxy import HAPROXY, TLS_BIND, configure

        ports = [n.port for n in self.nodes] + [free_port()] * (3 - len(self.nodes))
        swaps = {f"127.0.0.1:800{i + 1}": f"127.0.0.1:{port}" for i, port in enumerate(ports)}
        config = configure(
            self.dir,
            {
                TLS_BIND: f"bind 127.0.0.1:{self.proxy_port}",
                "bind :80": f"bind 127.0.0.1:{free_port()}",
                "local0 warning": "local0 info",
                **swaps,
            },
        )
        proc = subprocess.Popen(
            [HAPROXY, "-db", "-f", str(config)],
            stdout=self._log("haproxy.log"),
            stderr=subprocess.STDOUT,
        )
        self._stack.callback(_end, proc)
        self.wait(lambda: _takes_connections(self.proxy_port), "HAProxy", limit=30)

    def _bot_urls(self) -> list[str]:
        # Behind the proxy the bots are told the public address only, as a player would be.
        if self.proxied:
            return ["--url", self.public]
        others = [arg for n in self.nodes[1:] for arg in ("--other-node", n.url)]
        return ["--url", self.nodes[0].url, *others]

    def start(self) -> None:
        """The nodes, one bot crew per table (and the proxy, when proxied)."""
        if self.proxied:
            self._proxy()
        for node in self.nodes:
            self.start_node(node)
        for t in self.tables:
            self.bots.append(self._crew(t))
        self.wait(lambda: all(len(self.seated(t)) == BOTS_PER_TABLE for t in self.tables), "bots")

    def _crew(self, table: str) -> subprocess.Popen[bytes]:
        """``baccarat bots`` at ``table``, with accounts of the run's own; it logs to
        ``TABLE.bots.log``."""
        lines = []
        for i in range(BOTS_PER_TABLE):
            name = f"{table}bot{i}"
            user = self.store.create_user(name, "bot-password", level=50, coins=1_000_000)
            self.users.append(user.user_id)
            lines.append(f"{name}:bot-password")
        (self.dir / f"{table}.accounts").write_text("\n".join(lines) + "\n")
        return subprocess.Popen(
            [
                sys.executable, "-m", "baccarat", "bots", *self._bot_urls(),
                "--accounts", str(self.dir / f"{table}.accounts"),
                "--count", str(BOTS_PER_TABLE), "--table", table, "--processes", "1",
                "--strategy", "flat", "--log-level", "info",
            ],
            stdout=subprocess.DEVNULL,
            stderr=self._log(f"{table}.bots.log"),
        )  # fmt: skip

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
            "--log-level", "info", "--keys", str(self.dir / "keys"), *self.serve_args(),
            port=node.port, log=node.log, healthy=False, limit=90.0,
        ).proc  # fmt: skip

    def serve_args(self) -> list[str]:
        """What every node is started with beyond the cluster's own arguments."""
        return []

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

    # -- faults ------------------------------------------------------------------------

    def inject(self, fault: str, phase: str, table: str) -> Outcome:
        """Wait for ``table`` to reach ``phase``, inject ``fault``, wait for the recovery."""
        self.wait(lambda: self.lines()[table]["phase"] == phase, f"{table} in {phase}")
        epoch, owner = self.holder(table)
        node = self.node_of(owner)
        before = self.who_sits()
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
                lambda: all(before[t] <= self.seated(t) for t in self.tables),
                "every user seated again",
                limit=self.grace + LEASE_TTL + 10,
            )
            seated_again = True
        except AssertionError:
            seated_again = False
            missing = {t: before[t] - self.seated(t) for t in self.tables}
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
        lines = seats_freed(self.nodes, {u for m in missing.values() for u in m})
        for t, m in missing.items():
            if m:
                tail = (self.dir / f"{t}.bots.log").read_text(errors="replace").splitlines()
                lines += [f"{t} bots: {line}" for line in tail[-8:]]
        return " | ".join(lines) or "nothing logged"

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
            mine = [t for t in self.tables if self.holder(t)[1] == node.name]
            if mine:
                self.wait(lambda t=mine[0]: self.lines()[t]["phase"] == "squeeze", "a squeeze")
            start = time.monotonic()
            node.proc.send_signal(signal.SIGTERM)
            node.proc.wait(60)
            stops.append(round(time.monotonic() - start, 2))
            self.wait(
                lambda n=node.name: all(self.holder(t)[1] not in ("", n) for t in self.tables),
                "every table on the other node",
            )
            moved = time.monotonic()
            self.start_node(node)
        settled = {t: self.rounds_settled(t) for t in self.tables}
        self.wait(
            lambda: all(self.rounds_settled(t) > settled[t] for t in self.tables),
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
