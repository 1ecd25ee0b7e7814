"""The seated users' coins set to what their wallet holds, at a table."""

from __future__ import annotations

import logging

from baccarat.errors import BaccaratError
from baccarat.table import SetCoins, Table
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
