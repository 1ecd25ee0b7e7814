"""The store's tables: which node holds each one (its epoch), takeovers, who sits there."""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping

import sqlalchemy as sa

from baccarat.store import epochs
from baccarat.store import schema as s
from baccarat.store.batch import apply_ops
from baccarat.store.engine import reading
from baccarat.store.operators import Actor, append
from baccarat.store.ops import Void
from baccarat.store.records import Applied
from baccarat.store.writer import RETRIES


class Tables:
    """Table epochs and seats (see ``baccarat.store.epochs``): a part of the store."""

    engine: sa.Engine

    def take_table(self, table_id: str, node_id: str) -> epochs.Takeover:
        """Take a table over: raise its epoch and void its unfinished rounds, in one
        transaction; who sat there comes back too (their seats are kept for the grace)."""
        for attempt in range(RETRIES):
            try:
                with self.engine.begin() as conn:
                    epoch = epochs.raise_epoch(conn, table_id, node_id)
                    rids = list(
                        conn.scalars(
                            sa.select(s.rounds.c.id)
                            .where(s.rounds.c.table_id == table_id, s.rounds.c.status == "escrowed")
                            .order_by(s.rounds.c.id)
                        )
                    )
                    outcomes = apply_ops(conn, [Void(rid, epoch) for rid in rids])
                    for out in outcomes:
                        if not isinstance(out, Applied):
                            raise out
                    seats = epochs.seats_of(conn, table_id)
                    suspended = epochs.suspended_of(conn, table_id)
                return epochs.Takeover(table_id, epoch, rids, seats, suspended)
            except sa.exc.IntegrityError:
                # Another node's first takeover of this table inserted the row first.
                if attempt == RETRIES - 1:
                    raise
                time.sleep(0.01 * (attempt + 1))
        raise AssertionError("unreachable")

    def renew_epoch(self, table_id: str, node_id: str, held: int) -> int | None:
        """Raise the epoch ``node_id`` holds (it kept the table though the directory forgot
        its lease); the new epoch, or None if another node took the table meanwhile."""
        with self.engine.begin() as conn:
            return epochs.renew_epoch(conn, table_id, node_id, held)

    def epoch_of(self, table_id: str) -> int:
        """The table's current epoch (0 if it was never taken)."""
        return self.epochs_of([table_id])[table_id]

    def epochs_of(self, table_ids: Iterable[str]) -> dict[str, int]:
        """Each table's current epoch (0 for one never taken), in one read."""
        with reading(self.engine) as conn:
            return epochs.current(conn, table_ids)

    def holder_of(self, table_id: str) -> str | None:
        """The node that took the table last (None if it was never taken)."""
        with reading(self.engine) as conn:
            found = conn.scalar(
                sa.select(s.table_epochs.c.node_id).where(s.table_epochs.c.table_id == table_id)
            )
        return None if found is None else str(found)

    def save_suspended(
        self,
        table_id: str,
        epoch: int,
        notice: str | None,
        actor: Actor,
        reason: str,
        before: str | None,
    ) -> bool:
        """Keep an operator's closing of the table (None: reopened) with its log entry, in
        one transaction; False (nothing written) if ``epoch`` is stale."""
        with self.engine.begin() as conn:
            if not epochs.save_suspended(conn, table_id, epoch, notice):
                return False
            action = "close_table" if notice is not None else "open_table"
            append(conn, actor, action, f"table:{table_id}", reason,
                   {"suspended": before}, {"suspended": notice})  # fmt: skip
            return True

    def save_seats(self, table_id: str, epoch: int, seats: Mapping[int, int]) -> bool:
        """Record who sits at the table (seat -> user id); False if ``epoch`` is stale."""
        with self.engine.begin() as conn:
            return epochs.save_seats(conn, table_id, epoch, seats)
