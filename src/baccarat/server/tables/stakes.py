"""A round's stakes from a wallet the platform keeps (the seamless wallet), at the close.

Each bettor's stakes are debited first; a bettor whose stakes the platform did not give gets
them back at the table (``Unstake``), and the round plays on for the rest. Then the dealer's
cover of the bets that stayed: what the dealer would pay in the worse outcome. The round is
called off when the cover is not given, or when the book leaned on stakes that were not (the
table refuses to return them: the dealer could not cover the rest).
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from baccarat.cluster.outage import log_failure
from baccarat.errors import BaccaratError
from baccarat.server.tables.wallet import Wallet
from baccarat.store import BetRecord
from baccarat.table import Table, Unstake
from baccarat.table.events import BettingClosed, Event

log = logging.getLogger("baccarat.server")


async def take(
    table: Table,
    ev: BettingClosed,
    bets: tuple[BetRecord, ...],
    wallet: Wallet,
    clock: Callable[[], float],
) -> tuple[tuple[BetRecord, ...], list[Event]] | None:
    """The bets to escrow and the events of the stakes returned, or None to call the round
    off."""
    owed: dict[int, int] = {}
    for b in bets:
        owed[b.user_id] = owed.get(b.user_id, 0) + b.coins
    refused = await wallet.take(ev.round_id, owed) if owed else set()
    returned: list[Event] = []
    for uid in sorted(refused):
        try:
            returned += table.handle(Unstake(ev.round_id, uid), clock())
        except BaccaratError:
            return None  # the book leaned on these stakes
    rnd = table.round
    cover = rnd.liability(table.config.chip_unit) if rnd is not None else 0
    if cover and await wallet.take(ev.round_id, {ev.dealer: cover}):
        return None
    return tuple(b for b in bets if b.user_id not in refused), returned


async def give_back(wallet: Wallet | None, round_id: str) -> None:
    """What the platform's wallet gave for a round that landed goes back to it."""
    if wallet is None:
        return
    try:
        await wallet.give_back(round_id)
    except Exception as exc:
        # Recorded later by the wallet's own sweep, which finds the round landed.
        log_failure(log, "wallet give-back deferred", exc, {"round_id": round_id})
