"""What the operator's console shows beside the accounts: the stakes each table holds, a
user's latest ledger entries, their live sessions, and the rounds voided lately."""

from __future__ import annotations

import time
from typing import Any

import sqlalchemy as sa

from baccarat.store import schema as s
from baccarat.store.engine import reading
from baccarat.store.records import user_wallet


class ConsoleReads:
    """The console's reads of tables, ledger and sessions: a part of the store."""

    engine: sa.Engine

    def escrow_by_table(self) -> dict[str, int]:
        """The stakes each table holds in escrow now (rounds betting closed on, unsettled)."""
        with reading(self.engine) as conn:
            rows = conn.execute(
                sa.select(s.rounds.c.table_id, sa.func.sum(s.rounds.c.escrow))
                .where(s.rounds.c.status == "escrowed")
                .group_by(s.rounds.c.table_id)
            )
            return {str(t): int(n) for t, n in rows}

    def user_ledger(self, user_id: int, limit: int = 50) -> list[dict[str, Any]]:
        """The user's latest ledger entries, newest first: key, kind, memo, time, amount."""
        q = (
            sa.select(
                s.ledger_tx.c.key,
                s.ledger_tx.c.kind,
                s.ledger_tx.c.memo,
                s.ledger_tx.c.created_at,
                s.postings.c.amount,
            )
            .join(s.postings, s.postings.c.tx_key == s.ledger_tx.c.key)
            .where(s.postings.c.wallet == user_wallet(user_id))
            .order_by(s.ledger_tx.c.created_at.desc(), s.postings.c.id.desc())
            .limit(limit)
        )
        with reading(self.engine) as conn:
            return [
                {"key": k, "kind": kind, "memo": memo, "at": at, "amount": int(amount)}
                for k, kind, memo, at, amount in conn.execute(q)
            ]

    def sessions_of(self, user_id: int) -> tuple[int, float | None]:
        """How many live game sessions the user has, and when the latest began (their last
        login; None if they have none)."""
        live = s.sessions.c.expires_at > time.time()
        with reading(self.engine) as conn:
            count, latest = conn.execute(
                sa.select(sa.func.count(), sa.func.max(s.sessions.c.created_at))
                .select_from(s.sessions)
                .where(s.sessions.c.user_id == user_id, live)
            ).one()
        return int(count or 0), None if latest is None else float(latest)

    def voids_since(self, since: float) -> dict[str, int]:
        """Rounds voided since ``since`` (epoch seconds), by reason."""
        with reading(self.engine) as conn:
            rows = conn.execute(
                sa.select(s.rounds.c.void_reason, sa.func.count())
                .where(s.rounds.c.status == "voided", s.rounds.c.closed_at >= since)
                .group_by(s.rounds.c.void_reason)
            )
            return {str(reason or "unrecorded"): int(n) for reason, n in rows}
