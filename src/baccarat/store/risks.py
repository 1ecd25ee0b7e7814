"""What the risk view reads (``baccarat.risk``): settled rounds as the scorer's facts, and
the addresses accounts logged in from."""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Iterable

import sqlalchemy as sa

from baccarat.risk import RoundFacts
from baccarat.store import schema as s
from baccarat.store.engine import reading

RISK_ROUNDS = 200_000
"""At most this many of the newest settled rounds are read for one look."""


class Risks:
    """The risk scorer's reads, and the login addresses it weighs."""

    engine: sa.Engine

    def note_login_address(self, user_id: int, address: str, at: float | None = None) -> None:
        """Remember that ``user_id`` logged in from ``address`` (first and last time)."""
        now = time.time() if at is None else at
        address = address[:64]
        with self.engine.begin() as conn:
            done = conn.execute(
                sa.update(s.login_addresses)
                .where(
                    s.login_addresses.c.user_id == user_id,
                    s.login_addresses.c.address == address,
                )
                .values(last_at=now)
            )
            if not done.rowcount:
                conn.execute(
                    sa.insert(s.login_addresses).values(
                        user_id=user_id, address=address, first_at=now, last_at=now
                    )
                )

    def login_addresses(self, user_ids: Iterable[int]) -> dict[int, frozenset[str]]:
        """The addresses each of ``user_ids`` logged in from."""
        ids = sorted(set(user_ids))
        found: dict[int, set[str]] = defaultdict(set)
        if not ids:
            return {}
        with reading(self.engine) as conn:
            for row in conn.execute(
                sa.select(s.login_addresses.c.user_id, s.login_addresses.c.address).where(
                    s.login_addresses.c.user_id.in_(ids)
                )
            ):
                found[row.user_id].add(row.address)
        return {u: frozenset(a) for u, a in found.items()}

    def risk_rounds(self, since: float, limit: int = RISK_ROUNDS) -> list[RoundFacts]:
        """The rounds settled since ``since`` (the newest ``limit``), as the scorer reads them."""
        r, b = s.rounds, s.bets
        position = sa.func.sum(
            sa.case(
                (b.c.area == "player", b.c.coins),
                (b.c.area == "banker", -b.c.coins),
                else_=0,
            )
        )
        with reading(self.engine, snapshot=True) as conn:
            rows = conn.execute(
                sa.select(
                    r.c.id, r.c.table_id, r.c.round_no, r.c.closed_at, r.c.dealer_id, r.c.outcome
                )
                .where(r.c.status == "settled", r.c.closed_at >= since)
                .order_by(r.c.closed_at.desc())
                .limit(limit)
            ).all()
            ids = [row.id for row in rows]
            positions: dict[str, dict[int, int]] = defaultdict(dict)
            for chunk in range(0, len(ids), 1000):
                for p in conn.execute(
                    sa.select(b.c.round_id, b.c.user_id, position.label("position"))
                    .where(b.c.round_id.in_(ids[chunk : chunk + 1000]))
                    .group_by(b.c.round_id, b.c.user_id)
                ):
                    positions[p.round_id][p.user_id] = int(p.position)
        return [
            RoundFacts(
                row.id,
                row.table_id,
                row.round_no,
                row.closed_at,
                row.dealer_id,
                (row.outcome or {}).get("winner", "tie"),
                positions.get(row.id, {}),
            )
            for row in reversed(rows)
        ]

    def user_names(self, user_ids: Iterable[int]) -> dict[int, str]:
        """The display name of each of ``user_ids`` that exists."""
        ids = sorted(set(user_ids))
        if not ids:
            return {}
        with reading(self.engine) as conn:
            return {
                row.id: row.display_name
                for row in conn.execute(
                    sa.select(s.users.c.id, s.users.c.display_name).where(s.users.c.id.in_(ids))
                )
            }
