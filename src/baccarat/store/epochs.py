"""Table epochs: the database's word on which node may move a table's coins.

Taking a table over raises its epoch and voids its unfinished rounds in one transaction;
every escrow, settlement and void of that table then carries the epoch its writer holds and
is refused (``stale_epoch``) unless it is the current one (``baccarat.store.batch`` checks
it in the same transaction as the write). A table never taken has epoch 0. A node that
still holds its table after the directory forgot its lease (Redis restarted) raises the
epoch again only if nobody took the table meanwhile, and voids nothing.

The row also keeps who sits at the table, written by the epoch's holder, so the node that
takes the table over can keep every user's seat for the reconnect grace.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import sqlalchemy as sa

from baccarat.errors import Conflict
from baccarat.store import schema as s


@dataclass(frozen=True, slots=True)
class Takeover:
    """A table just taken: its new epoch, the rounds voided, who sat there (seat -> user)."""

    table_id: str
    epoch: int
    voided: list[str]
    seats: dict[int, int]
    suspended: str | None = None
    """The notice of an operator who closed the table (it stays closed), or None."""


_EPOCHS = (
    sa.select(s.table_epochs.c.table_id, s.table_epochs.c.epoch)
    .where(s.table_epochs.c.table_id.in_(sa.bindparam("ids", expanding=True)))
    .order_by(s.table_epochs.c.table_id)
)
_EPOCHS_LOCKED = _EPOCHS.with_for_update(read=True)
"""Built once, so SQLAlchemy keys and compiles them once (``footprint``'s statements too)."""


def current(conn: sa.Connection, table_ids: Iterable[str], *, lock: bool = False) -> dict[str, int]:
    """Each table's epoch (0 for a table never taken); ``lock`` holds the rows until commit.

    The lock is a shared one: writers of one table run side by side, a takeover waits for
    them and they for it, so a write never commits under an epoch already replaced.
    """
    ids = sorted(set(table_ids))
    if not ids:
        return {}
    q = _EPOCHS_LOCKED if lock else _EPOCHS
    found = {t: int(e) for t, e in conn.execute(q, {"ids": ids})}
    return {t: found.get(t, 0) for t in ids}


def stale(table_id: str, held: int, now: int) -> Conflict:
    """The refusal of a write that carries an epoch other than the table's current one."""
    return Conflict(
        "stale_epoch",
        f"Table {table_id!r} is at epoch {now}, not {held}: another node has taken it over.",
        table_id=table_id,
        epoch=now,
    )


def raise_epoch(conn: sa.Connection, table_id: str, node_id: str) -> int:
    """Raise the table's epoch for ``node_id`` (the row is locked until commit); the new one."""
    t = s.table_epochs
    now = time.time()
    row = conn.execute(
        sa.select(t.c.epoch).where(t.c.table_id == table_id).with_for_update()
    ).first()
    if row is None:
        # Two first takeovers at once: one insert wins, the other fails on the key and is
        # retried by its caller, then finds the row.
        conn.execute(
            sa.insert(t).values(
                table_id=table_id, epoch=1, node_id=node_id, taken_at=now, seats=None
            )
        )
        return 1
    epoch = int(row.epoch) + 1
    conn.execute(
        sa.update(t)
        .where(t.c.table_id == table_id)
        .values(epoch=epoch, node_id=node_id, taken_at=now)
    )
    return epoch


def renew_epoch(conn: sa.Connection, table_id: str, node_id: str, held: int) -> int | None:
    """Raise the epoch only if it is still ``held``; the new one, or None (taken meanwhile)."""
    t = s.table_epochs
    done = conn.execute(
        sa.update(t)
        .where(t.c.table_id == table_id, t.c.epoch == held)
        .values(epoch=held + 1, node_id=node_id, taken_at=time.time())
    )
    return held + 1 if done.rowcount == 1 else None


def seats_of(conn: sa.Connection, table_id: str) -> dict[int, int]:
    """Who sat at the table as its last epoch's holder wrote it (seat -> user id)."""
    raw = conn.scalar(
        sa.select(s.table_epochs.c.seats).where(s.table_epochs.c.table_id == table_id)
    )
    if not raw:
        return {}
    return {int(seat): int(user) for seat, user in dict(raw).items()}


def save_seats(conn: sa.Connection, table_id: str, epoch: int, seats: Mapping[int, int]) -> bool:
    """Write who sits at the table (seat -> user id), if ``epoch`` is still current."""
    t = s.table_epochs
    done = conn.execute(
        sa.update(t)
        .where(t.c.table_id == table_id, t.c.epoch == epoch)
        .values(seats={str(seat): user for seat, user in sorted(seats.items())})
    )
    return done.rowcount == 1


def suspended_of(conn: sa.Connection, table_id: str) -> str | None:
    """The closing notice an operator left on the table, or None (open)."""
    raw = conn.scalar(
        sa.select(s.table_epochs.c.suspended).where(s.table_epochs.c.table_id == table_id)
    )
    return None if raw is None else str(raw)


def save_suspended(conn: sa.Connection, table_id: str, epoch: int, notice: str | None) -> bool:
    """Write the table's closing notice (None: open), if ``epoch`` is still current."""
    t = s.table_epochs
    done = conn.execute(
        sa.update(t).where(t.c.table_id == table_id, t.c.epoch == epoch).values(suspended=notice)
    )
    return done.rowcount == 1
