"""The store's ledger: every coin that moves goes through the writer; balances read back."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import Future
from typing import Any

import sqlalchemy as sa

from baccarat.errors import Conflict, InvalidInput
from baccarat.numbers import whole
from baccarat.store import accounts, epochs
from baccarat.store import schema as s
from baccarat.store.audit import run_audit
from baccarat.store.engine import reading
from baccarat.store.operators import verify_reason
from baccarat.store.ops import VOID_CRASH, Escrow, Grant, Op, Outcome, Settle, Void
from baccarat.store.records import HOUSE, MINT, PLATFORM, Applied, AuditReport, BetRecord
from baccarat.store.writer import Writer

_BALANCES = sa.select(s.users.c.id, s.users.c.coins).where(
    s.users.c.id.in_(sa.bindparam("ids", expanding=True))
)
"""Every round's balances read (built once, so SQLAlchemy compiles it once)."""


MAX_GRANT = 10**12
"""The most coins one grant moves: far above any balance, and inside a 64-bit integer."""


class Ledger:
    """Grants, the rounds' escrows, settlements and voids, balances and the audit: a part of
    the store."""

    engine: sa.Engine
    _writer: Writer

    def submit(self, op: Op) -> Future[Applied]:
        """Queue a ledger operation for the next group commit (await with asyncio.wrap_future)."""
        return self._writer.submit(op)

    def apply_many(self, ops: Sequence[Op]) -> list[Outcome]:
        """Apply ``ops`` in one transaction now; one :class:`Applied` or error per operation."""
        return self._writer.apply(ops)

    def grant(
        self,
        username: str,
        coins: int,
        reason: str,
        key: str | None = None,
        *,
        actor: str = "cli",
        actor_id: int | None = None,
    ) -> int:
        """Move ``coins`` from the mint to the user (negative: back); return the new balance.
        The operator log gets the grant's entry (``actor`` granted) in the same transaction.

        With ``key`` the grant happens at most once: a retry returns the current balance.
        """
        reason = verify_reason(reason)
        if whole(coins) and abs(coins) > MAX_GRANT:
            raise InvalidInput("bad_amount", f"A grant moves at most {MAX_GRANT:,} coins.")
        with reading(self.engine) as conn:
            uid = accounts.find_user(conn, username).id
        grant = Grant(uid, coins, reason, key or f"grant:{uuid.uuid4()}", actor, actor_id)
        applied = self.submit(grant).result()
        return applied.balances[uid]

    def balance(self, user_id: int) -> int:
        """A user's coins."""
        with reading(self.engine) as conn:
            return accounts.load_user(conn, user_id).coins

    def balances(self, user_ids: Iterable[int]) -> dict[int, int]:
        """The coins of each of ``user_ids`` (unknown ids are left out), in one query."""
        ids = sorted(set(user_ids))
        if not ids:
            return {}
        with reading(self.engine) as conn:
            rows = conn.execute(_BALANCES, {"ids": ids})
            return {int(uid): int(coins) for uid, coins in rows}

    def _system(self, name: str) -> int:
        with reading(self.engine) as conn:
            return int(
                conn.scalar(
                    sa.select(s.system_wallets.c.balance).where(s.system_wallets.c.name == name)
                )
                or 0
            )

    def house_balance(self) -> int:
        """The house's coins (negative when it has paid out more than it took)."""
        return self._system(HOUSE)

    def mint_balance(self) -> int:
        """The mint's balance: minus every coin granted and not taken back."""
        return self._system(MINT)

    def total_coins(self) -> dict[str, int]:
        """Coins per kind of wallet; ``total`` is always 0 in a sound ledger."""
        with reading(self.engine, snapshot=True) as conn:
            users = int(
                conn.scalar(sa.select(sa.func.coalesce(sa.func.sum(s.users.c.coins), 0))) or 0
            )
            escrow = int(
                conn.scalar(sa.select(sa.func.coalesce(sa.func.sum(s.rounds.c.escrow), 0))) or 0
            )
            system = {n: int(b) for n, b in conn.execute(sa.select(s.system_wallets))}
        house, mint = int(system.get(HOUSE, 0)), int(system.get(MINT, 0))
        platform = int(system.get(PLATFORM, 0))
        return {
            "users": users,
            "house": house,
            "mint": mint,
            "platform": platform,
            "escrow": escrow,
            "total": users + house + mint + platform + escrow,
        }

    def audit(self, *, in_play_seconds: float = 0.0) -> AuditReport:
        """Check the ledger and recompute every settled round (see docs/storage.md). A round
        escrowed within the last ``in_play_seconds`` is in play, not left behind: a live
        system passes ``IN_PLAY_SECONDS``; a stopped one has no round in play."""
        with reading(self.engine, snapshot=True) as conn:
            # (strict without a window: a clock a little ahead on another node cannot hide a round)
            since = time.time() - in_play_seconds if in_play_seconds > 0 else None
            return run_audit(conn, since)

    # Rounds ---------------------------------------------------------------------------

    def escrow_round(
        self,
        round_id: str,
        table_id: str,
        shoe_id: str,
        round_no: int,
        dealer_id: int,
        bets: Iterable[BetRecord],
        *,
        epoch: int = 0,
        first_card: int | None = None,
    ) -> Applied:
        """Betting closed: move every stake into the round's escrow, all or nothing."""
        op = Escrow(
            round_id, table_id, shoe_id, round_no, dealer_id, tuple(bets), epoch, first_card
        )
        return self.submit(op).result()

    def settle_round(
        self,
        round_id: str,
        cards: Sequence[str],
        outcome: Mapping[str, Any],
        deltas: Mapping[int, int],
        commission: Mapping[int, int],
        house: int,
        *,
        epoch: int = 0,
    ) -> Applied:
        """Pay out a dealt round from its escrow; a repeat is a no-op that returns balances."""
        op = Settle(
            round_id, tuple(cards), dict(outcome), dict(deltas), dict(commission), house, epoch
        )
        return self.submit(op).result()

    def settle_many(self, settlements: Sequence[Settle]) -> list[Outcome]:
        """Settle many rounds in one transaction; one outcome per round."""
        return self.apply_many(settlements)

    def void_round(self, round_id: str, *, epoch: int = 0, reason: str = VOID_CRASH) -> Applied:
        """Return every stake of an escrowed round; refused once it is settled."""
        return self.submit(Void(round_id, epoch, reason)).result()

    def void_unfinished(self, table_ids: Iterable[str] | None = None) -> list[str]:
        """Void every round left escrowed (after a crash); return the ids voided here.

        Each void carries its table's current epoch: this is the operator's (or the one
        node's) word that nobody deals those tables now. With ``table_ids``, only those
        tables' rounds.
        """
        q = sa.select(s.rounds.c.id, s.rounds.c.table_id).where(s.rounds.c.status == "escrowed")
        if table_ids is not None:
            q = q.where(s.rounds.c.table_id.in_(list(table_ids)))
        with reading(self.engine) as conn:
            found = list(conn.execute(q.order_by(s.rounds.c.id)))
            current = epochs.current(conn, {t for _, t in found})
        ids = [rid for rid, _ in found]
        # Queue them all at once so the writer voids them in one group commit.
        futures = [self.submit(Void(rid, current[t])) for rid, t in found]
        voided = []
        for rid, fut in zip(ids, futures, strict=True):
            try:
                if not fut.result().replayed:
                    voided.append(rid)
            except Conflict:
                pass  # settled meanwhile by the writer that was still dealing it
        return voided
