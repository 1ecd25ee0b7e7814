"""The seated users' coins set to what their wallet holds, at a table.

A user the platform keeps (the seamless wallet) has a balance only when the platform
confirms it: it answered, and no call of theirs is still waiting for its answer (a credit
not yet taken would make it look short). Until then the table keeps the last balance it knew
(never the game's own wallet, empty between rounds) and marks the user ``WalletAway``: no
stake counts on it, and nothing the platform caused is held against them.
"""

from __future__ import annotations

import logging
from collections.abc import Collection, Mapping
from typing import NamedTuple

from baccarat.errors import BaccaratError
from baccarat.server.tables.wallet import Wallet
from baccarat.table import SetCoins, Table, WalletAway
from baccarat.table.events import Event

log = logging.getLogger("baccarat.server")


def set_coins(
    table: Table, table_id: str, found: dict[int, int], now: float, changed_only: bool
) -> list[Event]:
    """Each seated user's coins as ``found`` (user id -> coins) says; with ``changed_only``
    only those that differ, each logged (an outside change: a grant, a transfer)."""
    events: list[Event] = []
    for user_id, coins in sorted(found.items()):
        occ = table.occupant(user_id)
        if changed_only and occ is not None and occ.coins == coins:
            continue
        if changed_only:
            log.info(
                "coins changed outside the table",
                extra={"table_id": table_id, "user_id": user_id, "coins": coins},
            )
        try:
            events.extend(table.handle(SetCoins(user_id, coins), now))
        except BaccaratError as exc:
            log.warning("coins not reloaded", extra={"user_id": user_id, "code": exc.code})
    return events


class Told(NamedTuple):
    """What the platform's wallet told of some users: those it keeps, and the balance of each
    it confirmed."""

    kept: set[int]
    balances: dict[int, int]


async def confirmed(wallet: Wallet, user_ids: Collection[int]) -> Told:
    """The users of ``user_ids`` the platform keeps, and the balance of each it confirms now.

    What is owed is read before the balances: a call that lands in between only makes a
    balance look final a moment late, never short."""
    kept = {u for u in user_ids if await wallet.keeps(u)}
    if not kept:
        return Told(kept, {})
    owing = await wallet.owing(kept)
    # Asked of every kept user, owing or not: an answer tells the wallet the platform is back.
    told = await wallet.balances(sorted(kept))
    return Told(kept, {u: coins for u, coins in told.items() if u not in owing})


def unconfirmed(
    table: Table, found: dict[int, int], told: Told, undo: Mapping[int, int] | None, now: float
) -> set[int]:
    """Put the confirmed balances of the users the platform keeps in ``found`` (the game's
    wallet's, empty between rounds, never counts for them), mark each kept user seated
    whether theirs is unconfirmed, and return those. An unconfirmed user keeps the table's
    balance, less ``undo`` (the results of a voided round, which the table counted)."""
    away = told.kept - set(told.balances)
    for uid in told.kept:
        found.pop(uid, None)
        occ = table.occupant(uid)
        if occ is None:
            continue
        if uid in away and undo and undo.get(uid):
            found[uid] = occ.coins - undo[uid]
        if occ.wallet_away != (uid in away):
            table.handle(WalletAway(uid, uid in away), now)
    found.update(told.balances)
    if away:
        log.warning("wallet balances not confirmed; stakes wait", extra={"users": sorted(away)})
    return away


def confirm(table: Table, table_id: str, told: Mapping[int, int], now: float) -> list[Event]:
    """The platform confirmed these balances of users marked away: the table takes them (a
    ``coins_set`` each, so every screen learns they may stake again) and stakes resume."""
    events: list[Event] = []
    for uid, coins in sorted(told.items()):
        occ = table.occupant(uid)
        if occ is None or not occ.wallet_away:
            continue
        try:
            events.extend(table.handle(SetCoins(uid, coins), now))
        except BaccaratError as exc:
            log.warning("coins not confirmed", extra={"user_id": uid, "code": exc.code})
            continue
        events.extend(table.handle(WalletAway(uid, False), now))
        log.info("wallet balance confirmed", extra={"table_id": table_id, "user_id": uid})
    return events
