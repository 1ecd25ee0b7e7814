"""The shoe archive: a table's shoes, newest first, and each shoe's rounds in dealing order.

Public reading: nothing here reads a bet, a result or a user. A page of shoes starts after a
cursor (the start time and id of the previous page's last shoe), so shoes started meanwhile
never shift a page.

A shoe's rounds are in dealing order: the rounds that say where their cards start in the shoe
(``first_card``) by that place, then by number; a round recorded without it (by an older
version) keeps its place among them by number. Never by the round's id, which is random: a
crash's replacement round could then come before the round it replaced. The browser's
verifier orders them the same way (``web/js/fair.js``, ``dealingOrder``).
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from baccarat.store import schema as s
from baccarat.store.records import ShoeRecord, ShoeRound
from baccarat.store.rounds import shoe_from_row


def table_shoe_page(
    conn: sa.Connection, table_id: str, limit: int, before: tuple[float, str] | None
) -> list[tuple[ShoeRecord, int]]:
    """One page of ``table_id``'s shoes, newest first (by start time, then id), each with
    the number of its rounds that were settled.

    ``before`` is the (start time, shoe id) of the last shoe of the previous page.
    """
    q = sa.select(s.shoes).where(s.shoes.c.table_id == table_id)
    if before is not None:
        at, sid = before
        q = q.where(
            sa.or_(
                s.shoes.c.started_at < at,
                sa.and_(s.shoes.c.started_at == at, s.shoes.c.id < sid),
            )
        )
    q = q.order_by(s.shoes.c.started_at.desc(), s.shoes.c.id.desc()).limit(limit)
    shoes = [shoe_from_row(row) for row in conn.execute(q)]
    counts = settled_counts(conn, [shoe.shoe_id for shoe in shoes])
    return [(shoe, counts.get(shoe.shoe_id, 0)) for shoe in shoes]


def settled_counts(conn: sa.Connection, shoe_ids: list[str]) -> dict[str, int]:
    """How many settled rounds each of ``shoe_ids`` has (a shoe without one is left out)."""
    if not shoe_ids:
        return {}
    q = (
        sa.select(s.rounds.c.shoe_id, sa.func.count())
        .where(s.rounds.c.shoe_id.in_(shoe_ids), s.rounds.c.status == "settled")
        .group_by(s.rounds.c.shoe_id)
    )
    return {shoe_id: int(n) for shoe_id, n in conn.execute(q)}


def dealing_order() -> tuple[sa.UnaryExpression[Any], ...]:
    """The ``ORDER BY`` of a shoe's settled rounds in dealing order (a settled round recorded
    without ``first_card`` was dealt by an older version, before the others); the same on
    SQLite and PostgreSQL, whose default places of a null differ."""
    r = s.rounds.c
    return (r.first_card.asc().nulls_first(), r.round_no.asc(), r.escrowed_at.asc())


def in_dealing_order(rounds: list[ShoeRound]) -> list[ShoeRound]:
    """A shoe's rounds in dealing order (see the module's docstring)."""
    by_number = sorted(rounds, key=lambda r: (r.round_no, r.escrowed_at))
    known = [r for r in by_number if r.first_card is not None]
    placed = iter(sorted(known, key=lambda r: (r.first_card or 0, r.round_no, r.escrowed_at)))
    return [next(placed) if r.first_card is not None else r for r in by_number]


def shoe_rounds(conn: sa.Connection, shoe_id: str) -> list[ShoeRound]:
    """Every round of ``shoe_id`` in dealing order (none for an unknown shoe)."""
    r = s.rounds.c
    q = sa.select(
        r.id, r.round_no, r.status, r.cards, r.outcome, r.escrowed_at, r.closed_at, r.first_card
    ).where(r.shoe_id == shoe_id)
    return in_dealing_order(
        [
            ShoeRound(
                round_id=row.id,
                round_no=row.round_no,
                status=row.status,
                cards=list(row.cards) if row.cards is not None else None,
                winner=(row.outcome or {}).get("winner"),
                escrowed_at=row.escrowed_at,
                closed_at=row.closed_at,
                first_card=row.first_card,
            )
            for row in conn.execute(q)
        ]
    )
