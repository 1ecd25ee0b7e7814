"""The commitment log in the database: entries appended one at a time, signed heads, proofs.

An append locks the one ``log_state`` row, takes the next index, adds the leaf to the tree's
frontier (``merkle.Frontier``), and signs the new head, all in the transaction that records
the shoe: a shoe is never dealt without its commitment in the log. Proofs read the leaf
hashes (32 bytes an entry) and compute the path.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa

from baccarat import merkle
from baccarat.errors import InvalidInput, NotFound
from baccarat.logbook import Entry, LogSigner, SignedHead
from baccarat.store import schema as s

MAX_ENTRIES = 1000
"""The most entries one read gives."""

SHOE_DEALT = "dealt"
"""Ended as the rules end a shoe (its rounds or its cards ran out), or after a restart found it
so; its seed is revealed."""
SHOE_CLOSED = "closed"
"""Its table is run no more (gone from the rooms file); its seed is revealed."""
SHOE_KEY_MISSING = "key_missing"
"""Its seed was sealed with a key no node holds: the shoe cannot be dealt on or revealed."""
SHOE_UNSEALED = "unsealed"
"""Begun before seeds were sealed at rest: its seed was lost with the node that held it."""
SHOE_BROKEN = "seal_broken"
"""Its sealed seed does not open to its commitment: altered in the database."""
SHOE_RESTORED = "restored"
"""In play in a database restored from a copy: cards after its mark there may have been shown,
so it is not dealt on; its seed is revealed."""


@dataclass(frozen=True, slots=True)
class LoggedEntry:
    """An entry as the log's readers get it: the entry, its leaf hash, and the shoe's seed
    once its shoe has ended (None before)."""

    entry: Entry
    leaf_hash: str
    seed: str | None
    ended: bool


def append(
    conn: sa.Connection, signer: LogSigner, shoe_id: str, table_id: str, commitment: str, now: int
) -> SignedHead:
    """Append the shoe's commitment to the log (one at a time) and sign the new head."""
    state = conn.execute(
        sa.select(s.log_state.c.size, s.log_state.c.frontier)
        .where(s.log_state.c.id == 1)
        .with_for_update()
    ).one()
    frontier = merkle.Frontier.from_json(int(state.size), list(state.frontier))
    entry = Entry(frontier.size, shoe_id, table_id, commitment, now)
    leaf = merkle.leaf_hash(entry.leaf())
    frontier = frontier.append(leaf)
    conn.execute(
        sa.insert(s.shoe_log).values(
            idx=entry.index,
            shoe_id=shoe_id,
            table_id=table_id,
            commitment=commitment,
            logged_at=now,
            leaf_hash=leaf.hex(),
        )
    )
    conn.execute(
        sa.update(s.log_state)
        .where(s.log_state.c.id == 1)
        .values(size=frontier.size, frontier=frontier.to_json())
    )
    conn.execute(sa.update(s.shoes).where(s.shoes.c.id == shoe_id).values(log_index=entry.index))
    return _signed(conn, signer, frontier, now)


def sign_head(conn: sa.Connection, signer: LogSigner, now: int) -> SignedHead:
    """Sign the log's head as it stands (the daily head of a log that did not grow)."""
    state = conn.execute(
        sa.select(s.log_state.c.size, s.log_state.c.frontier)
        .where(s.log_state.c.id == 1)
        .with_for_update()
    ).one()
    return _signed(
        conn, signer, merkle.Frontier.from_json(int(state.size), list(state.frontier)), now
    )


def _signed(
    conn: sa.Connection, signer: LogSigner, frontier: merkle.Frontier, now: int
) -> SignedHead:
    head = signer.sign(frontier.size, now, frontier.root().hex())
    conn.execute(sa.insert(s.log_heads).values(**head.json()))
    return head


def _head(row: Any) -> SignedHead:
    return SignedHead(int(row[0]), int(row[1]), str(row[2]), str(row[3]), str(row[4]))


_HEADS = sa.select(
    s.log_heads.c.tree_size,
    s.log_heads.c.timestamp,
    s.log_heads.c.root_hash,
    s.log_heads.c.key_id,
    s.log_heads.c.signature,
)


def latest_head(conn: sa.Connection) -> SignedHead | None:
    """The newest signed head, or None before the first."""
    row = conn.execute(_HEADS.order_by(s.log_heads.c.id.desc()).limit(1)).first()
    return None if row is None else _head(row)


def head_of_size(conn: sa.Connection, tree_size: int) -> SignedHead:
    """The newest head signed at ``tree_size``; ``unknown_head`` (NotFound) if none was."""
    row = conn.execute(
        _HEADS.where(s.log_heads.c.tree_size == tree_size).order_by(s.log_heads.c.id.desc())
    ).first()
    if row is None:
        raise NotFound("unknown_head", f"No head was signed at tree size {tree_size}.")
    return _head(row)


def entries(conn: sa.Connection, start: int, end: int) -> list[LoggedEntry]:
    """The entries ``start`` to ``end - 1`` (at most ``MAX_ENTRIES``), each with its shoe's
    seed once revealed."""
    if not 0 <= start < end or end - start > MAX_ENTRIES:
        raise InvalidInput(
            "bad_range",
            f"Entries are read from start to end (end > start >= 0), at most {MAX_ENTRIES} at once.",
        )
    lg, sh = s.shoe_log.c, s.shoes.c
    q = (
        sa.select(
            lg.idx, lg.shoe_id, lg.table_id, lg.commitment, lg.logged_at, lg.leaf_hash,
            sh.seed, sh.ended_at,
        )
        .select_from(s.shoe_log.outerjoin(s.shoes, sh.id == lg.shoe_id))
        .where(lg.idx >= start, lg.idx < end)
        .order_by(lg.idx)
    )  # fmt: skip
    return [
        LoggedEntry(
            Entry(int(r.idx), r.shoe_id, r.table_id, r.commitment, int(r.logged_at)),
            r.leaf_hash,
            r.seed if r.ended_at is not None else None,
            r.ended_at is not None,
        )
        for r in conn.execute(q)
    ]


def holds_head(conn: sa.Connection, head: SignedHead) -> bool:
    """Whether the log holds this very head (size, time, root and signature)."""
    h = s.log_heads.c
    q = sa.select(h.id).where(
        h.tree_size == head.tree_size,
        h.timestamp == head.timestamp,
        h.root_hash == head.root_hash,
        h.signature == head.signature,
    )
    return conn.execute(q.limit(1)).first() is not None


def leaf_hashes(conn: sa.Connection, size: int) -> list[bytes]:
    """The first ``size`` leaf hashes, in order."""
    q = sa.select(s.shoe_log.c.leaf_hash).where(s.shoe_log.c.idx < size).order_by(s.shoe_log.c.idx)
    return [bytes.fromhex(h) for h in conn.scalars(q)]


def index_of(conn: sa.Connection, shoe_id: str) -> int:
    """The log index of shoe ``shoe_id``; ``not_logged`` (NotFound) if it has none."""
    idx = conn.scalar(sa.select(s.shoe_log.c.idx).where(s.shoe_log.c.shoe_id == shoe_id))
    if idx is None:
        raise NotFound("not_logged", f"Shoe {shoe_id!r} is not in the commitment log.")
    return int(idx)
