"""Reading round and shoe records back."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import sqlalchemy as sa

from baccarat.errors import NotFound
from baccarat.store import schema as s
from baccarat.store.records import BetRecord, RoundRecord, ShoeRecord


def load_rounds(conn: sa.Connection, round_ids: list[str]) -> list[RoundRecord]:
    """The records of ``round_ids``, in the order given (unknown ids are skipped)."""
    if not round_ids:
        return []
    rows = {r.id: r for r in conn.execute(sa.select(s.rounds).where(s.rounds.c.id.in_(round_ids)))}
    bets: dict[str, list[BetRecord]] = defaultdict(list)
    for b in conn.execute(
        sa.select(s.bets).where(s.bets.c.round_id.in_(round_ids)).order_by(s.bets.c.id)
    ):
        bets[b.round_id].append(BetRecord(b.user_id, b.area, b.chips, int(b.coins), b.at))
    deltas: dict[str, dict[int, int]] = defaultdict(dict)
    commission: dict[str, dict[int, int]] = defaultdict(dict)
    for res in conn.execute(
        sa.select(s.round_results).where(s.round_results.c.round_id.in_(round_ids))
    ):
        deltas[res.round_id][res.user_id] = int(res.delta)
        if res.commission:
            commission[res.round_id][res.user_id] = int(res.commission)
    return [_record(rows[rid], bets, deltas, commission) for rid in round_ids if rid in rows]


def _record(
    row: Any,
    bets: dict[str, list[BetRecord]],
    deltas: dict[str, dict[int, int]],
    commission: dict[str, dict[int, int]],
) -> RoundRecord:
    return RoundRecord(
        round_id=row.id,
        table_id=row.table_id,
        shoe_id=row.shoe_id,
        round_no=row.round_no,
        dealer_id=row.dealer_id,
        status=row.status,
        bets=bets.get(row.id, []),
        cards=list(row.cards) if row.cards is not None else None,
        outcome=row.outcome,
        deltas=deltas.get(row.id, {}),
        commission=commission.get(row.id, {}),
        house=None if row.house is None else int(row.house),
        escrowed_at=row.escrowed_at,
        closed_at=row.closed_at,
        void_reason=row.void_reason,
    )


def load_round(conn: sa.Connection, round_id: str) -> RoundRecord:
    """One round's record, or NotFound."""
    found = load_rounds(conn, [round_id])
    if not found:
        raise NotFound("unknown_round", f"There is no round {round_id!r}.")
    return found[0]


def user_round_ids(conn: sa.Connection, user_id: int, limit: int) -> list[str]:
    """The ids of the newest ``limit`` rounds ``user_id`` bet in or dealt, newest first."""
    bet_in = sa.select(s.bets.c.round_id).where(s.bets.c.user_id == user_id)
    q = (
        sa.select(s.rounds.c.id)
        .where(sa.or_(s.rounds.c.dealer_id == user_id, s.rounds.c.id.in_(bet_in)))
        .order_by(s.rounds.c.escrowed_at.desc(), s.rounds.c.id.desc())
        .limit(limit)
    )
    return list(conn.scalars(q))


def user_round_page(
    conn: sa.Connection, user_id: int, limit: int, before: tuple[float, str] | None
) -> list[str]:
    """One page of the rounds ``user_id`` bet in or dealt, newest first.

    ``before`` is the (escrow time, round id) of the last round of the previous page: the
    page starts right after it, so rounds written meanwhile never shift a page.
    """
    bet_in = sa.select(s.bets.c.round_id).where(s.bets.c.user_id == user_id)
    q = sa.select(s.rounds.c.id).where(
        sa.or_(s.rounds.c.dealer_id == user_id, s.rounds.c.id.in_(bet_in))
    )
    if before is not None:
        at, rid = before
        q = q.where(
            sa.or_(
                s.rounds.c.escrowed_at < at,
                sa.and_(s.rounds.c.escrowed_at == at, s.rounds.c.id < rid),
            )
        )
    q = q.order_by(s.rounds.c.escrowed_at.desc(), s.rounds.c.id.desc()).limit(limit)
    return list(conn.scalars(q))


def table_round_page(
    conn: sa.Connection,
    table_id: str,
    since: float,
    until: float,
    limit: int,
    before: tuple[float, str] | None,
) -> list[str]:
    """One page of the ids of ``table_id``'s rounds whose betting closed in [since, until),
    newest first; ``before`` is the (escrow time, round id) of the previous page's last."""
    r = s.rounds.c
    q = sa.select(r.id).where(r.table_id == table_id, r.escrowed_at >= since, r.escrowed_at < until)
    if before is not None:
        at, rid = before
        q = q.where(sa.or_(r.escrowed_at < at, sa.and_(r.escrowed_at == at, r.id < rid)))
    q = q.order_by(r.escrowed_at.desc(), r.id.desc()).limit(limit)
    return list(conn.scalars(q))


def user_net(conn: sa.Connection, user_id: int, since: float) -> tuple[int, int, int]:
    """(net coins, commission, rounds) of ``user_id``'s rounds settled at or after ``since``."""
    row = conn.execute(
        sa.select(
            sa.func.coalesce(sa.func.sum(s.round_results.c.delta), 0),
            sa.func.coalesce(sa.func.sum(s.round_results.c.commission), 0),
            sa.func.count(),
        )
        .select_from(s.round_results.join(s.rounds, s.rounds.c.id == s.round_results.c.round_id))
        .where(
            s.round_results.c.user_id == user_id,
            s.rounds.c.status == "settled",
            s.rounds.c.closed_at >= since,
        )
    ).one()
    return int(row[0]), int(row[1]), int(row[2])


def load_shoes(conn: sa.Connection, shoe_ids: set[str]) -> dict[str, ShoeRecord]:
    """The records of the known shoes among ``shoe_ids``."""
    if not shoe_ids:
        return {}
    rows = conn.execute(sa.select(s.shoes).where(s.shoes.c.id.in_(sorted(shoe_ids))))
    return {row.id: shoe_from_row(row) for row in rows}


def shoe_from_row(row: Any) -> ShoeRecord:
    """A :class:`ShoeRecord` from a ``shoes`` row."""
    return ShoeRecord(
        row.id,
        row.table_id,
        row.commitment,
        row.seed,
        row.started_at,
        row.ended_at,
        row.sealed_seed,
        row.next_card,
        row.end_reason,
        row.log_index,
    )


def load_shoe(conn: sa.Connection, shoe_id: str) -> ShoeRecord:
    """One shoe's record, or NotFound."""
    row = conn.execute(sa.select(s.shoes).where(s.shoes.c.id == shoe_id)).first()
    if row is None:
        raise NotFound("unknown_shoe", f"There is no shoe {shoe_id!r}.")
    return shoe_from_row(row)
