"""The store's part for the fair shoe across restarts and for the commitment log: shoes still
being dealt (to deal on or to end), and the log's heads, entries and proofs."""

from __future__ import annotations

import time
from typing import Any

import sqlalchemy as sa

from baccarat import merkle
from baccarat.errors import InvalidInput, NotFound
from baccarat.logbook import LogSigner, SignedHead
from baccarat.store import schema as s
from baccarat.store import shoelog
from baccarat.store.engine import reading
from baccarat.store.records import ShoeRecord
from baccarat.store.rounds import shoe_from_row
from baccarat.store.shoes import dealing_order


def now_ms() -> int:
    """The time in whole milliseconds, as the log writes it."""
    return time.time_ns() // 1_000_000


class Commitments:
    """Shoes a node deals on after a restart, and the commitment log: a part of the store."""

    engine: sa.Engine

    # Shoes in play -----------------------------------------------------------------------

    def unended_shoes(self, table_id: str | None = None) -> list[ShoeRecord]:
        """Shoes not ended yet (of one table, or of all), oldest first."""
        q = sa.select(s.shoes).where(s.shoes.c.ended_at.is_(None))
        if table_id is not None:
            q = q.where(s.shoes.c.table_id == table_id)
        with reading(self.engine) as conn:
            rows = conn.execute(q.order_by(s.shoes.c.started_at, s.shoes.c.id))
            return [shoe_from_row(row) for row in rows]

    def shoe_outcomes(self, shoe_id: str) -> list[dict[str, Any]]:
        """The outcome of each settled round of a shoe, in dealing order (its roads' marks)."""
        r = s.rounds.c
        q = (
            sa.select(r.outcome)
            .where(r.shoe_id == shoe_id, r.status == "settled")
            .order_by(*dealing_order())
        )
        with reading(self.engine) as conn:
            return [dict(o) for o in conn.scalars(q)]

    def last_round_no(self, shoe_id: str) -> int:
        """The highest round number a shoe recorded, its voided rounds' included (0 for none):
        the next round of the shoe takes the one after, so no number is given twice."""
        r = s.rounds.c
        with reading(self.engine) as conn:
            top = conn.scalar(sa.select(sa.func.max(r.round_no)).where(r.shoe_id == shoe_id))
            return int(top or 0)

    def end_shoe_unrevealed(self, shoe_id: str, reason: str) -> None:
        """End a shoe whose seed cannot be revealed (``reason`` says why); an ended shoe
        stays as it is."""
        with self.engine.begin() as conn:
            conn.execute(
                sa.update(s.shoes)
                .where(s.shoes.c.id == shoe_id, s.shoes.c.ended_at.is_(None))
                .values(ended_at=time.time(), end_reason=reason, sealed_seed=None)
            )

    # The log -------------------------------------------------------------------------------

    def sign_log_head(self, signer: LogSigner) -> SignedHead:
        """Sign the log's head as it stands now."""
        with self.engine.begin() as conn:
            return shoelog.sign_head(conn, signer, now_ms())

    def log_head(self) -> SignedHead | None:
        """The newest signed head (None before the first shoe)."""
        with reading(self.engine) as conn:
            return shoelog.latest_head(conn)

    def log_head_of_size(self, tree_size: int) -> SignedHead:
        """The newest head signed at ``tree_size`` (``unknown_head`` if none was)."""
        with reading(self.engine) as conn:
            return shoelog.head_of_size(conn, tree_size)

    def holds_log_head(self, head: SignedHead) -> bool:
        """Whether the log holds this very head (a copy made before it was signed does not)."""
        with reading(self.engine) as conn:
            return shoelog.holds_head(conn, head)

    def log_root_at(self, tree_size: int) -> bytes | None:
        """The root of the log's first ``tree_size`` entries; None when it has fewer."""
        with reading(self.engine, snapshot=True) as conn:
            leaves = shoelog.leaf_hashes(conn, tree_size)
        return merkle.root(leaves) if len(leaves) == tree_size else None

    def log_entries(self, start: int, end: int) -> list[shoelog.LoggedEntry]:
        """The log's entries ``start`` to ``end - 1``."""
        with reading(self.engine) as conn:
            return shoelog.entries(conn, start, end)

    def log_inclusion(
        self, shoe_id: str, tree_size: int | None = None
    ) -> tuple[shoelog.LoggedEntry, SignedHead, list[bytes]]:
        """A shoe's entry, a signed head that holds it (the newest, or the one of
        ``tree_size``), and the entry's audit path to that head's root."""
        with reading(self.engine, snapshot=True) as conn:
            index = shoelog.index_of(conn, shoe_id)
            head = (
                shoelog.latest_head(conn)
                if tree_size is None
                else shoelog.head_of_size(conn, tree_size)
            )
            if head is None or head.tree_size <= index:
                raise NotFound("not_in_head", f"No signed head holds shoe {shoe_id!r} yet.")
            entry = shoelog.entries(conn, index, index + 1)[0]
            path = merkle.inclusion_path(index, shoelog.leaf_hashes(conn, head.tree_size))
            return entry, head, path

    def log_consistency(self, first: int, second: int) -> list[bytes]:
        """The consistency proof between the log at ``first`` and at ``second`` entries."""
        with reading(self.engine, snapshot=True) as conn:
            size = conn.scalar(sa.select(s.log_state.c.size).where(s.log_state.c.id == 1)) or 0
            if not 0 < first <= second <= size:
                raise InvalidInput(
                    "bad_range",
                    f"A consistency proof is between sizes 0 < first <= second <= {size}.",
                )
            return merkle.consistency_proof(first, shoelog.leaf_hashes(conn, second))
