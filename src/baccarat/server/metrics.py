"""Prometheus metrics of one server, in a registry of its own (so tests can run many apps).

The alert rules and the dashboard under ``deploy/`` read these names; a test checks that
every name they use is exported here.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from prometheus_client import (
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    ProcessCollector,
    generate_latest,
)
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from baccarat.server import collector

if TYPE_CHECKING:
    from baccarat.cluster.keeper import Keeper
    from baccarat.server.health import Health
    from baccarat.server.limits import AuthLimits
    from baccarat.server.passwords import PasswordPool
    from baccarat.store import Store

LATENCY_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0)
"""Seconds: from half a millisecond, where a quiet server answers, to a second."""
STALL_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5)
"""Seconds the loop stood still (a collection, a late timer)."""
CONSOLE_LOGINS = ("success", "failure", "enrolled", "locked", "rate_limited")
"""The outcomes of a console login, each a series from the start (alerts read them)."""
RISK_PATTERNS = ("hedge", "dumping")
"""The risk view's patterns (``baccarat.risk``): 對打 and chip dumping."""


def _is_up(health: Health, part: str) -> float:
    return float(health.up(part) is True)


class Metrics:
    """Clients, tables, rounds settled and voided, latency, errors, drops, the ledger's retries,
    and the process's memory and CPU."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        self.clients = Gauge(
            "baccarat_clients_connected", "WebSocket clients connected", registry=self.registry
        )
        self.tables = Gauge(
            "baccarat_tables_running", "Table tasks running", registry=self.registry
        )
        self.rounds = Counter(
            "baccarat_rounds_settled", "Rounds settled", ["table_id"], registry=self.registry
        )
        self.rounds_voided = Counter(
            "baccarat_rounds_voided", "Rounds voided, by reason", ["reason"], registry=self.registry
        )
        self.console_logins = Counter(
            "baccarat_console_logins",
            "Console logins, by outcome (success, failure, enrolled, locked, rate_limited)",
            ["outcome"],
            registry=self.registry,
        )
        for outcome in CONSOLE_LOGINS:
            self.console_logins.labels(outcome)
        self.risk_pairs = Gauge(
            "baccarat_risk_pairs_flagged",
            "Pairs of accounts the risk view flags over the last 7 days, by pattern",
            ["pattern"],
            registry=self.registry,
        )
        for pattern in RISK_PATTERNS:
            self.risk_pairs.labels(pattern)
        self.latency = Histogram(
            "baccarat_command_seconds",
            "Time from receiving a command to answering it (peel moves are not timed)",
            ["command"],
            buckets=LATENCY_BUCKETS,
            registry=self.registry,
        )
        self.delivery = Histogram(
            "baccarat_delivery_seconds",
            "Time from a table's timer falling due to its events reaching the sockets",
            buckets=LATENCY_BUCKETS,
            registry=self.registry,
        )
        self.ledger_retries = Counter(
            "baccarat_ledger_retries",
            "Ledger writes tried again because the database did not answer",
            registry=self.registry,
        )
        self.errors = Counter(
            "baccarat_command_errors", "Commands refused, by code", ["code"], registry=self.registry
        )
        self.dropped = Counter(
            "baccarat_clients_dropped",
            "Clients dropped, by reason",
            ["reason"],
            registry=self.registry,
        )
        self.loop_lag = Histogram(
            "baccarat_loop_lag_seconds",
            "How late the event loop woke a timer due every 100 ms (a stall delays every table)",
            buckets=STALL_BUCKETS,
            registry=self.registry,
        )
        self._latency_of: dict[str, Any] = {}
        self.deliveries = Counter(
            "baccarat_messages_queued", "Messages queued to clients", registry=self.registry
        )
        # The process's memory, CPU and descriptors have a registry of their own, read off the
        # loop: counting 9,000 sockets' descriptors in /proc takes 7 ms.
        self.process = CollectorRegistry()
        ProcessCollector(registry=self.process)

    def watch_collector(self) -> Callable[[], None]:
        """Time the garbage collector's pauses; return the function that stops it."""
        pauses = Histogram(
            "baccarat_gc_pause_seconds",
            "How long each garbage collection stopped the server, by generation",
            ["generation"],
            buckets=STALL_BUCKETS,
            registry=self.registry,
        )
        children = [pauses.labels(str(g)) for g in range(3)]
        return collector.watch(lambda generation, seconds: children[generation].observe(seconds))

    def watch_passwords(self, pool: PasswordPool) -> None:
        """Report the password pool's jobs and refusals."""
        jobs = Gauge(
            "baccarat_password_jobs",
            "Password checks running or waiting for a thread",
            registry=self.registry,
        )
        jobs.set_function(lambda: pool.jobs)
        refused = Gauge(
            "baccarat_password_jobs_refused",
            "Logins and registrations answered 503 because the password queue was full",
            registry=self.registry,
        )
        refused.set_function(lambda: pool.refused)

    def watch_store(self, store: Store) -> None:
        """Report the ledger writer's commits and the writes they carried (their ratio is
        how much group commit shares: near 1 on a quiet server, several when busy)."""
        self.registry.register(_LedgerCollector(store))

    def watch_limits(self, limits: AuthLimits) -> None:
        """Report the logins and registrations refused by a rate limit, by limit."""
        self.registry.register(_LimitsCollector(limits))

    def watch_keeper(self, keeper: Keeper) -> None:
        """Report the node's heartbeat, the nodes it sees and the table leases it lost."""
        self.registry.register(_KeeperCollector(keeper))

    def watch_health(self, health: Health) -> None:
        """Report whether each shared part answered its last probe, and readiness."""
        up = Gauge(
            "baccarat_dependency_up",
            "1 while a shared part (database, directory) answers the node's probes, else 0",
            ["part"],
            registry=self.registry,
        )
        for name in health.parts:
            up.labels(name).set_function(functools.partial(_is_up, health, name))
        ready = Gauge(
            "baccarat_ready",
            "1 while the node takes clients (started, not stopping), whatever its parts",
            registry=self.registry,
        )
        ready.set_function(lambda: float(health.ready))

    def observe_command(self, command: str, seconds: float) -> None:
        """Record one command's time to its answer (the labelled child is looked up once)."""
        child = self._latency_of.get(command)
        if child is None:
            child = self._latency_of[command] = self.latency.labels(command)
        child.observe(seconds)

    def render(self) -> bytes:
        """The server's own metrics in the Prometheus text format (read on the loop)."""
        data: bytes = generate_latest(self.registry)
        return data

    def render_process(self) -> bytes:
        """The process's memory, CPU and descriptors (reads ``/proc``: call it off the loop)."""
        data: bytes = generate_latest(self.process)
        return data


class _LedgerCollector(Collector):
    """The store's own counts, read when the metrics are."""

    def __init__(self, store: Store) -> None:
        self.store = store

    def collect(self) -> Iterator[Metric]:
        yield CounterMetricFamily(
            "baccarat_ledger_commits", "Ledger transactions committed", value=self.store.commits
        )
        yield CounterMetricFamily(
            "baccarat_ledger_writes",
            "Ledger operations committed (escrows, settlements, voids, grants)",
            value=self.store.writes,
        )


class _LimitsCollector(Collector):
    """The rate limits' refusals, read when the metrics are."""

    def __init__(self, limits: AuthLimits) -> None:
        self.limits = limits

    def collect(self) -> Iterator[Metric]:
        family = CounterMetricFamily(
            "baccarat_auth_rate_limited",
            "Logins and registrations refused by a rate limit, by the setting that refused them",
            labels=["limit"],
        )
        for limit, count in sorted(self.limits.refused.items()):
            family.add_metric([limit], count)
        yield family


class _KeeperCollector(Collector):
    """The node's standing in the directory, read when the metrics are."""

    def __init__(self, keeper: Keeper) -> None:
        self.keeper = keeper

    def collect(self) -> Iterator[Metric]:
        keeper = self.keeper
        lost = CounterMetricFamily(
            "baccarat_table_leases_lost",
            "Tables stopped here because their lease was lost, by reason",
            labels=["reason"],
        )
        for reason, count in sorted(keeper.leases_lost.items()):
            lost.add_metric([reason], count)
        yield lost
        yield GaugeMetricFamily(
            "baccarat_nodes_alive",
            "Nodes whose heartbeat this node last saw in the directory",
            value=keeper.nodes_seen,
        )
        if keeper.heartbeat_at is not None:
            yield GaugeMetricFamily(
                "baccarat_node_heartbeat_timestamp_seconds",
                "When this node last wrote its heartbeat to the directory (Unix time)",
                value=keeper.heartbeat_at,
            )
