"""The shared parts blinking under a fault run's clients: PostgreSQL stopped, its standby
promoted, Redis restarted empty, the platform's wallet down, a second server started on the
same database by mistake.

``OutageRun`` is a ``FaultRun`` with, besides the bots of ``TABLES``: a third table whose
bots are the platform's users (``platformcrew``; the nodes run with ``--platform`` in
seamless mode, the stand-in ``standin``), and a browser page seated at t1 (``pagewatch``),
all of them told the public address only when proxied. Each case keeps a part down for its
seconds, brings it back, and measures: seconds from the part's return until every client
was back in its seat and until every table settled a round, rounds voided, coins lost,
answers 5xx but 503 (in the proxy's log, at the clients, in the nodes' logs), whether the
page showed the proxy's page or the lobby's 連線中斷, and tracebacks in the nodes' logs.
"""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import clientlogs
import nodelogs
import sqlalchemy as sa
from faultkit import LEASE_TTL, TABLES, FaultRun
from outcome import Outcome
from standin import StandIn

from baccarat.store import schema as s
from baccarat.store.wallet import CLOSED, DEBIT, DONE
from serving import free_port

HERE = Path(__file__).resolve().parent
OUTAGES = (("postgres", 20.0), ("postgres", 60.0), ("redis", 10.0), ("wallet", 30.0))
"""The long outages: the part, and the seconds it stays down."""
FAILOVER = "failover"
FAILOVER_DOWN = 3.0
"""Seconds the primary stays down before its standby is promoted: longer than a table goes
between two writes, so that tables wait for the database."""
SECOND_SERVE = "second-serve"
PLATFORM_TABLE = "t3"
PLATFORM_USERS = ("p1", "p2", "p3")
PAGE_TABLE = "t1"
PAGE_USER = "pageuser"
BACK_GOAL = 5.0
"""Seconds after a part's return by which every client must be back in its seat."""


class OutageRun(FaultRun):
    """A fault run with the platform's table and a browser page, and the outage cases."""

    tables = (*TABLES, PLATFORM_TABLE)

    def __init__(self, workdir: Path, *args: Any, page: bool = True, **kwargs: Any) -> None:
        super().__init__(workdir, *args, **kwargs)
        game = self.public if self.proxied else self.nodes[0].url
        self.platform = StandIn(workdir / "platform", game)
        self.with_page = page
        self.page: subprocess.Popen[bytes] | None = None

    def _address(self) -> list[str]:
        return ["--url", self.public] if self.proxied else ["--url", self.nodes[0].url]

    def serve_args(self) -> list[str]:
        """Every node asks the platform's wallet for its users' coins."""
        return ["--platform", str(self.platform.game_file)]

    def start(self) -> None:
        """The platform, the cluster and its bots, then the page seated."""
        self.platform.start()
        for user in PLATFORM_USERS:
            self.platform.add_user(user, 10_000_000)
        super().start()
        if self.with_page:
            self.store.create_user(PAGE_USER, "page-password", level=60, coins=1_000_000)
            self.page = subprocess.Popen(
                [sys.executable, str(HERE / "pagewatch.py"), *self._address(),
                 "--user", PAGE_USER, "--password", "page-password", "--table", PAGE_TABLE],
                stdout=self._log("page.log"),
                stderr=self._log("page.err"),
            )  # fmt: skip
            self.wait(lambda: "seated" in self.page_log.read_text(), "the page seated", 120)

    @property
    def page_log(self) -> Path:
        """What the page showed (``pagewatch``'s lines)."""
        return self.dir / "page.log"

    def _crew(self, table: str) -> subprocess.Popen[bytes]:
        if table != PLATFORM_TABLE:
            return super()._crew(table)
        others = (
            [] if self.proxied else [a for n in self.nodes[1:] for a in ("--other-node", n.url)]
        )
        return subprocess.Popen(
            [sys.executable, str(HERE / "platformcrew.py"), *self._address(), *others,
             "--platform", self.platform.url, "--table", table,
             "--users", ",".join(PLATFORM_USERS)],
            stdout=subprocess.DEVNULL,
            stderr=self._log(f"{table}.bots.log"),
        )  # fmt: skip

    def close(self) -> None:
        """The page, then the cluster, then the platform."""
        if self.page is not None:
            self.page.terminate()
            try:
                self.page.wait(30)
            except subprocess.TimeoutExpired:
                self.page.kill()
                self.page.wait()
        super().close()
        self.platform.close()

    # -- the cases -----------------------------------------------------------------------

    def outage(self, part: str, seconds: float) -> Outcome:
        """Keep ``part`` (postgres, redis, wallet) down for ``seconds`` under the clients,
        then bring it back: nothing voided or taken over, no 5xx but 503, no traceback, every
        client back in its seat within ``BACK_GOAL`` seconds of its return."""
        down, up = {
            "postgres": (self.pg.stop, self.pg.start),
            "redis": (self.redis.kill, self.redis.start),
            "wallet": (self.platform.stop, self.platform.start),
        }[part]
        return self._through(f"{part}-{seconds:g}s", down, up, seconds)

    def failover(self, down: float = FAILOVER_DOWN) -> Outcome:
        """Stop the primary under the clients and promote its standby ``down`` seconds later:
        the outage's checks, nothing logged as an error, and when each table whose write
        waited for the database took it."""
        assert self.standby is not None
        return self._through(FAILOVER, self.pg.stop, self.standby.promote, down)

    def second_serve(self) -> Outcome:
        """``baccarat serve`` started by mistake without ``--redis`` on the cluster's
        database: refused in one line with exit status 2, before it voids or takes anything."""
        at, since = nodelogs.marks(self.nodes), time.time()
        proxy_at = clientlogs.size(self.dir / "haproxy.log")
        held = {t: self.holder(t) for t in self.tables}
        coins = self.coins()
        out = subprocess.run(
            [sys.executable, "-m", "baccarat", "serve", "--host", "127.0.0.1",
             "--port", str(free_port()), "--db", self.db, "--rooms", str(self.rooms),
             "--keys", str(self.dir / "keys"), *self.serve_args()],
            capture_output=True, text=True, timeout=120, check=False,
        )  # fmt: skip
        said = [line for line in (out.stdout + out.stderr).splitlines() if line.strip()]
        problems = [] if out.returncode == 2 else [f"exit status {out.returncode}"]
        if len(said) != 1:
            problems.append(f"{len(said)} lines said: {said[:5]}")
        outcome = self._checked(SECOND_SERVE, at, proxy_at, {}, coins, since, time.time(), problems)
        taken = [t for t in self.tables if self.holder(t)[0] != held[t][0]]
        if taken:
            outcome.problems.append(f"epochs raised at {taken}")
        outcome.said = said[0][:300] if said else ""
        return outcome

    def _through(
        self, kind: str, down: Callable[[], None], up: Callable[[], None], seconds: float
    ) -> Outcome:
        at = nodelogs.marks(self.nodes)
        proxy_at = clientlogs.size(self.dir / "haproxy.log")
        before = self.who_sits()
        coins = self.coins()
        since = time.time()
        down()
        time.sleep(seconds)
        up()
        returned = time.time()
        outcome = self._checked(kind, at, proxy_at, before, coins, since, returned, [])
        if kind == FAILOVER:
            logged = nodelogs.errors_logged(self.nodes, at)
            if logged:
                some = "; ".join(sorted(set(logged))[:5])
                outcome.problems.append(f"{len(logged)} errors logged: {some}")
            resumed = nodelogs.resumed_at(self.nodes, at, since)
            outcome.resumed = {t: round(ts - returned, 2) for t, ts in resumed.items()}
        return outcome

    def _checked(
        self,
        kind: str,
        at: dict[str, int],
        proxy_at: int,
        before: dict[str, set[int]],
        coins: int,
        since: float,
        returned: float,
        problems: list[str],
    ) -> Outcome:
        """The figures of a case whose part came back at ``returned``."""
        limit = self.grace + LEASE_TTL + 30
        seated_again = True
        try:
            self.wait(
                lambda: (
                    self.clients_back(since, returned)[0] is not None
                    and all(before.get(t, set()) <= self.seated(t) for t in self.tables)
                ),
                "every client back in its seat",
                limit=limit,
            )
        except AssertionError:
            seated_again = False
            problems.append("not every client back in its seat")
        back, page, clients_5xx = self.clients_back(since, returned)
        if back is not None and back > BACK_GOAL:
            problems.append(f"every client back {back} s after the return (goal {BACK_GOAL} s)")
        played = self.played_after(returned, wallet=kind.startswith("wallet"))
        voided = self.voided_since(since - 1.0)
        if voided:
            problems.append(f"rounds voided: {voided}")
        nodes_5xx, tracebacks = nodelogs.server_errors(self.nodes, at)
        proxy_5xx, proxy_503 = clientlogs.proxy_answers(self.dir / "haproxy.log", proxy_at)
        http = {"proxy": proxy_5xx, "clients": clients_5xx, "nodes": nodes_5xx}
        if any(http.values()):
            problems.append(f"answers 5xx other than 503: {http}")
        if tracebacks:
            problems.append(f"{len(tracebacks)} tracebacks, after: {sorted(set(tracebacks))[:5]}")
        if page and any(page.values()):
            problems.append(f"the page showed {[k for k, v in page.items() if v]}")
        return Outcome(
            kind, "-", "-", None, voided, coins - self.coins(), seated_again, 0, problems,
            None, back, played, None, {**http, "proxy_503": proxy_503}, page, len(tracebacks),
        )  # fmt: skip

    # -- looking -------------------------------------------------------------------------

    def clients_back(
        self, since: float, returned: float
    ) -> tuple[float | None, dict[str, bool] | None, int]:
        """Seconds from ``returned`` until every client (each crew's bots, the page) was
        back in its seat (None while one is not), what the page showed, and the answers 5xx
        but 503 the clients got, since ``since``."""
        backs: list[float | None] = []
        errors = 0
        for t in self.tables:
            back, met = clientlogs.crew_back(self.dir / f"{t}.bots.log", since, returned)
            backs.append(back)
            errors += met
        page = None
        if self.with_page:
            back, page, met = clientlogs.page_back(self.page_log, since, returned)
            backs.append(back)
            errors += met
        if any(b is None for b in backs):
            return None, page, errors
        return max(b for b in backs if b is not None), page, errors

    def played_after(self, returned: float, *, wallet: bool = False) -> float | None:
        """Seconds from ``returned`` until every table had settled a round (``wallet``: until
        a round took the platform's users' stakes), or None if that did not come."""
        firsts = self._firsts(returned, wallet)
        try:
            self.wait(lambda: len(firsts()) == (1 if wallet else len(self.tables)), "rounds", 90)
        except AssertionError:
            return None
        return round(max(firsts().values()) - returned, 2)

    def _firsts(self, returned: float, wallet: bool) -> Callable[[], dict[str, float]]:
        def settled() -> dict[str, float]:
            r = s.rounds
            with self.store.engine.connect() as conn:
                rows = conn.execute(
                    sa.select(r.c.table_id, sa.func.min(r.c.closed_at))
                    .where(r.c.status == "settled", r.c.closed_at >= returned)
                    .group_by(r.c.table_id)
                )
                return {str(t): float(ts) for t, ts in rows}

        def staked() -> dict[str, float]:
            calls = self.store.wallet_calls_between(returned, 1e12)
            taken = [c.created_at for c in calls if c.kind == DEBIT and c.state in (DONE, CLOSED)]
            return {PLATFORM_TABLE: min(taken)} if taken else {}

        return staked if wallet else settled
