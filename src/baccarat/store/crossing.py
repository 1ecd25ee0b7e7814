"""Coins crossing between an operator's platform and the game, as both ways write them.

A transfer (``platform``) and a seamless wallet's call (``wallet``) each move coins between
the ``platform`` system wallet and a user's game wallet in one ledger transaction of two
postings; both name the platform's user of an account, and list what was made in a span.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa

from baccarat.store import schema as s
from baccarat.store.records import PLATFORM, user_wallet


def platform_user_of(conn: sa.Connection, user_id: int) -> str | None:
    """The platform's id of an account linked to it, or None."""
    return conn.scalar(
        sa.select(s.platform_users.c.platform_user).where(s.platform_users.c.user_id == user_id)
    )


def cross(conn: sa.Connection, key: str, kind: str, user_id: int, amount: int, at: float) -> None:
    """The ledger transaction ``key`` moving ``amount`` from the platform into the user's game
    wallet (negative: back out), and the platform's balance; the user's row is the caller's."""
    conn.execute(sa.insert(s.ledger_tx).values(key=key, kind=kind, memo="", created_at=at))
    conn.execute(
        sa.insert(s.postings),
        [
            {"tx_key": key, "wallet": user_wallet(user_id), "amount": amount},
            {"tx_key": key, "wallet": PLATFORM, "amount": -amount},
        ],
    )
    conn.execute(
        sa.update(s.system_wallets)
        .where(s.system_wallets.c.name == PLATFORM)
        .values(balance=s.system_wallets.c.balance - amount)
    )


def made_between(
    conn: sa.Connection, table: sa.Table, tiebreak: str, start: float, end: float
) -> Sequence[Any]:
    """The rows of ``table`` made in ``[start, end)``, oldest first (then by ``tiebreak``)."""
    return conn.execute(
        sa.select(table)
        .where(table.c.created_at >= start, table.c.created_at < end)
        .order_by(table.c.created_at, table.c[tiebreak])
    ).all()
