"""The store's archive of play: shoes with their commitments and seeds, and rounds as dealt."""

from __future__ import annotations

import time
from collections.abc import Iterable

import sqlalchemy as sa

from baccarat.errors import Conflict, InvalidInput
from baccarat.logbook import LogSigner
from baccarat.numbers import whole
from baccarat.shoe import commitment, parse_seed
from baccarat.store import accounts, shoelog
from baccarat.store import schema as s
from baccarat.store.commitments import now_ms
from baccarat.store.engine import reading
from baccarat.store.records import RoundRecord, ShoeRecord, ShoeRound
from baccarat.store.rounds import (
    load_round,
    load_rounds,
    load_shoe,
    load_shoes,
    table_round_page,
    user_net,
    user_round_ids,
    user_round_page,
)
from baccarat.store.shoelog import SHOE_DEALT
from baccarat.store.shoes import shoe_rounds, table_shoe_page


class Archive:
    """Shoes and rounds as recorded, for a user's history and for anyone checking a shoe: a
    part of the store."""

    engine: sa.Engine

    # Shoes ----------------------------------------------------------------------------

    def record_shoe_start(
        self,
        shoe_id: str,
        table_id: str,
        commitment_hex: str,
        sealed_seed: str | None = None,
        signer: LogSigner | None = None,
    ) -> None:
        """Record a new shoe, its published commitment and its sealed seed (a repeat is
        ignored); with ``signer``, append the commitment to the log and sign the new head,
        in the same transaction."""
        with self.engine.begin() as conn:
            row = conn.execute(sa.select(s.shoes).where(s.shoes.c.id == shoe_id)).first()
            if row is not None:
                if row.commitment != commitment_hex:
                    raise Conflict(
                        "shoe_exists", f"Shoe {shoe_id!r} exists with another commitment."
                    )
                return
            conn.execute(
                sa.insert(s.shoes).values(
                    id=shoe_id,
                    table_id=table_id,
                    commitment=commitment_hex,
                    started_at=time.time(),
                    sealed_seed=sealed_seed,
                    next_card=0,
                )
            )
            if signer is not None:
                shoelog.append(conn, signer, shoe_id, table_id, commitment_hex, now_ms())

    def record_shoe_end(self, shoe_id: str, seed_hex: str, reason: str = SHOE_DEALT) -> None:
        """Record the revealed seed (it must match the shoe's commitment), and why the shoe
        ended; its sealed copy goes."""
        seed = parse_seed(seed_hex)
        with self.engine.begin() as conn:
            shoe = load_shoe(conn, shoe_id)
            if commitment(seed) != shoe.commitment:
                raise InvalidInput(
                    "seed_mismatch", f"That seed does not match shoe {shoe_id!r}'s commitment."
                )
            if shoe.seed is None:
                conn.execute(
                    sa.update(s.shoes)
                    .where(s.shoes.c.id == shoe_id)
                    .values(
                        seed=seed.hex(), ended_at=time.time(), end_reason=reason, sealed_seed=None
                    )
                )

    def get_shoe(self, shoe_id: str) -> ShoeRecord:
        """A shoe's record: commitment, and seed once ended."""
        with reading(self.engine) as conn:
            return load_shoe(conn, shoe_id)

    def list_shoes(
        self, table_id: str, limit: int = 20, before: tuple[float, str] | None = None
    ) -> list[tuple[ShoeRecord, int]]:
        """One page of a table's shoes, newest first, each with its number of settled rounds.

        ``before`` is the (``started_at``, ``shoe_id``) of the previous page's last shoe.
        """
        if not whole(limit) or limit <= 0:
            raise InvalidInput("bad_limit", f"A limit is a whole number above 0, not {limit!r}.")
        with reading(self.engine) as conn:
            return table_shoe_page(conn, table_id, limit, before)

    def shoe_rounds(self, shoe_id: str) -> list[ShoeRound]:
        """Every round of a shoe in dealing order (by where its cards start): cards and
        winner, no bet and no user."""
        with reading(self.engine) as conn:
            return shoe_rounds(conn, shoe_id)

    # Rounds ---------------------------------------------------------------------------

    def get_round(self, round_id: str) -> RoundRecord:
        """One round's record."""
        with reading(self.engine) as conn:
            return load_round(conn, round_id)

    def history(self, username: str, limit: int = 50) -> list[RoundRecord]:
        """The newest rounds a user bet in or dealt, newest first."""
        if not whole(limit) or limit <= 0:
            raise InvalidInput("bad_limit", f"A limit is a whole number above 0, not {limit!r}.")
        with reading(self.engine) as conn:
            uid = accounts.find_user(conn, username).id
            return load_rounds(conn, user_round_ids(conn, uid, limit))

    def user_rounds(
        self, user_id: int, limit: int = 20, before: tuple[float, str] | None = None
    ) -> tuple[list[RoundRecord], dict[str, ShoeRecord]]:
        """One page of a user's rounds (bet in or dealt), newest first, with their shoes."""
        if not whole(limit) or limit <= 0:
            raise InvalidInput("bad_limit", f"A limit is a whole number above 0, not {limit!r}.")
        with reading(self.engine) as conn:
            records = load_rounds(conn, user_round_page(conn, user_id, limit, before))
            return records, load_shoes(conn, {r.shoe_id for r in records})

    def table_rounds(
        self,
        table_id: str,
        since: float,
        until: float,
        limit: int = 50,
        before: tuple[float, str] | None = None,
    ) -> list[RoundRecord]:
        """One page of a table's rounds whose betting closed in [since, until), newest first.

        ``before`` is the (``escrowed_at``, ``round_id``) of the previous page's last round.
        """
        if not whole(limit) or limit <= 0:
            raise InvalidInput("bad_limit", f"A limit is a whole number above 0, not {limit!r}.")
        with reading(self.engine) as conn:
            ids = table_round_page(conn, table_id, since, until, limit, before)
            return load_rounds(conn, ids)

    def round_places(self, round_ids: Iterable[str]) -> dict[str, tuple[str, int]]:
        """Each known round of ``round_ids`` with its table and its number in its shoe."""
        ids = sorted(set(round_ids))
        if not ids:
            return {}
        r = s.rounds.c
        with reading(self.engine) as conn:
            rows = conn.execute(sa.select(r.id, r.table_id, r.round_no).where(r.id.in_(ids)))
            return {row.id: (row.table_id, row.round_no) for row in rows}

    def user_net(self, user_id: int, since: float) -> tuple[int, int, int]:
        """(net coins, commission, rounds) of a user's rounds settled since ``since``."""
        with reading(self.engine) as conn:
            return user_net(conn, user_id, since)
