"""A batch's footprint: what its ledger operations touch, locked and read before any is checked.

Every transaction takes its locks in one order: the tables' epochs first, the rounds next,
the users' wallets last, each in key order, so that two batches cannot deadlock.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import sqlalchemy as sa

from baccarat.store import epochs
from baccarat.store import schema as s
from baccarat.store.ops import Escrow, Grant, Op, Settle, Unescrowed


@dataclass(slots=True)
class RoundBook:
    """A round as a batch sees it: its table, state, dealer, escrow and each bettor's stake."""

    table_id: str
    status: str
    dealer_id: int
    escrow: int
    stakes: dict[int, int]
    shoe_id: str = ""
    first_card: int | None = None


# The statements are built once: a statement object is compiled once per database
# (SQLAlchemy caches by the object's key, which it computes once), and its lists are
# expanding parameters, so building and keying each statement costs nothing per batch.
_DONE = sa.select(s.ledger_tx.c.key).where(
    s.ledger_tx.c.key.in_(sa.bindparam("ids", expanding=True))
)
_ROUND_TABLES = (
    sa.select(s.rounds.c.table_id)
    .where(s.rounds.c.id.in_(sa.bindparam("ids", expanding=True)))
    .distinct()
)
_ROUNDS = (
    sa.select(
        s.rounds.c.id,
        s.rounds.c.table_id,
        s.rounds.c.status,
        s.rounds.c.dealer_id,
        s.rounds.c.escrow,
        s.rounds.c.shoe_id,
        s.rounds.c.first_card,
    )
    .where(s.rounds.c.id.in_(sa.bindparam("ids", expanding=True)))
    .order_by(s.rounds.c.id)
    .with_for_update()
)
_STAKES = (
    sa.select(s.bets.c.round_id, s.bets.c.user_id, sa.func.sum(s.bets.c.coins))
    .where(s.bets.c.round_id.in_(sa.bindparam("ids", expanding=True)))
    .group_by(s.bets.c.round_id, s.bets.c.user_id)
)
_COINS = (
    sa.select(s.users.c.id, s.users.c.coins)
    .where(s.users.c.id.in_(sa.bindparam("ids", expanding=True)))
    .order_by(s.users.c.id)
    .with_for_update()
)


def _round_ids(ops: Iterable[Op]) -> set[str]:
    return {op.round_id for op in ops if not isinstance(op, Grant)}


def _tables(conn: sa.Connection, ops: Sequence[Op], rids: list[str]) -> set[str]:
    # A round's table never changes, so it is read before any lock is taken: the epochs are
    # locked first, the rounds next, the wallets last, in every transaction alike.
    tables = {op.table_id for op in ops if isinstance(op, Escrow | Unescrowed)}
    if rids:
        tables.update(conn.scalars(_ROUND_TABLES, {"ids": rids}))
    return tables


def load_footprint(
    conn: sa.Connection, ops: Sequence[Op]
) -> tuple[set[str], dict[str, int], dict[str, RoundBook], dict[int, int]]:
    """Lock and read what ``ops`` touch: the keys already in the ledger, the tables' epochs,
    the rounds with their stakes, and every wallet the batch may move."""
    keys = {op.key for op in ops}
    done = set(conn.scalars(_DONE, {"ids": sorted(keys)}))
    rids = sorted(_round_ids(ops))
    table_epochs = epochs.current(conn, _tables(conn, ops, rids), lock=True)
    rounds = _load_rounds(conn, rids)
    coins = _load_coins(conn, _users_touched(ops, rounds))
    return done, table_epochs, rounds, coins


def _load_rounds(conn: sa.Connection, rids: list[str]) -> dict[str, RoundBook]:
    """The rounds named, locked, each with every bettor's total stake."""
    rounds: dict[str, RoundBook] = {}
    if not rids:
        return rounds
    for rid, table_id, status, dealer, escrow, shoe_id, first in conn.execute(
        _ROUNDS, {"ids": rids}
    ):
        rounds[rid] = RoundBook(table_id, status, dealer, escrow, {}, shoe_id, first)
    if rounds:
        for rid, uid, total in conn.execute(_STAKES, {"ids": list(rounds)}):
            rounds[rid].stakes[uid] = int(total)
    return rounds


def _users_touched(ops: Sequence[Op], rounds: dict[str, RoundBook]) -> set[int]:
    """Every user whose wallet the batch may move: named by an op or in a round's book."""
    uids: set[int] = set()
    for op in ops:
        uids.update(_op_users(op))
    for r in rounds.values():
        uids.add(r.dealer_id)
        uids.update(r.stakes)
    return uids


def _op_users(op: Op) -> set[int]:
    if isinstance(op, Escrow):
        return {op.dealer_id, *(b.user_id for b in op.bets)}
    if isinstance(op, Settle):
        return set(op.deltas)
    if isinstance(op, Grant):
        return {op.user_id}
    if isinstance(op, Unescrowed):
        return {op.dealer_id}
    return set()


def _load_coins(conn: sa.Connection, uids: set[int]) -> dict[int, int]:
    """Each user's coins, locked in id order so that two batches cannot deadlock."""
    if not uids:
        return {}
    return {uid: int(c) for uid, c in conn.execute(_COINS, {"ids": sorted(uids)})}
