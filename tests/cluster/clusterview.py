"""What a fault run's cluster looks like now: who holds each table (the database's epochs),
who sits where (the lobbies), the rounds settled and voided, and every coin."""

from __future__ import annotations

import contextlib
import json
import subprocess
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from tcprelay import Relay

from baccarat.store import Store
from baccarat.store import schema as s


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


def _get(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=3) as resp:
        return json.load(resp)


class ClusterView:
    """What the database and the nodes' lobbies say of the cluster."""

    store: Store
    nodes: list[Node]
    tables: tuple[str, ...]

    @staticmethod
    def wait(predicate: Any, what: str, limit: float = 90.0) -> float:
        """Poll until truthy; the seconds it took (a bound on a hang, not a speed test)."""
        start = time.monotonic()
        while time.monotonic() - start < limit:
            with contextlib.suppress(
                OSError, ValueError, KeyError, StopIteration, sa.exc.OperationalError
            ):
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

    def who_sits(self) -> dict[str, set[int]]:
        """Who sits at each table, once every table's node lists it (a table handed over at
        a round's end is in no lobby for a moment)."""
        found: dict[str, set[int]] = {}
        self.wait(lambda: found.update({t: self.seated(t) for t in self.tables}) is None, "seats")
        return found

    def coins(self) -> int:
        """Every coin held by users, the house, escrow and the platform's side of its users'
        stakes (minus the mint: it never moves)."""
        total = self.store.total_coins()
        assert total["total"] == 0, total
        return total["users"] + total["house"] + total["escrow"] + total["platform"]

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

    def node_of(self, name: str) -> Node:
        """The node called ``name``."""
        return next(n for n in self.nodes if n.name == name)

    def loads(self) -> dict[str, int]:
        """How many tables each node runs, as the database's epochs say."""
        held = [self.holder(t)[1] for t in self.tables]
        return {n.name: held.count(n.name) for n in self.nodes}

    def spread_evenly(self) -> bool:
        """Whether every node runs an even share of the tables, within one."""
        loads = self.loads().values()
        return max(loads) - min(loads) <= 1

    def seats(self) -> dict[int, tuple[str, int]]:
        """Where each user sits (table and seat), as the nodes that run the tables say, once
        every table's node lists it."""
        found: dict[int, tuple[str, int]] = {}
        self.wait(lambda: found.update(self._seats_now()) is None, "every table's seats")
        return found

    def _seats_now(self) -> dict[int, tuple[str, int]]:
        out: dict[int, tuple[str, int]] = {}
        for t in self.tables:
            node = self.node_of(self.holder(t)[1])
            line = {x["table_id"]: x for x in _get(node.url + "/api/lobby")["tables"]}[t]
            for i, seat in enumerate(line["seats"]):
                if seat is not None:
                    out[seat["user_id"]] = (t, i)
        return out
