"""What a table's events write to the store: shoes, and each round's escrow and payout.

A round's stakes move into escrow when betting closes and out when it settles, each in one
transaction. A round nobody bet on is written the same way (an empty escrow, a settlement of
zeros), so history and the audit see every round dealt. When the ledger refuses (a balance
changed outside the table, say), the round is voided: it plays out on the table but moves no
coin, and the table's balances are put back to the ledger's.

Every write carries the table's epoch this node holds (``baccarat.store.epochs``). Once
another node has taken the table over, the database refuses them (``stale_epoch``): the new
owner has already voided the round in escrow, so this node writes nothing more for it.
"""

from __future__ import annotations

import asyncio
import logging

from baccarat.errors import BaccaratError, Conflict
from baccarat.server import facts
from baccarat.server.metrics import Metrics
from baccarat.store import Escrow, Settle, Store, Void
from baccarat.table import SetCoins, Table, wire
from baccarat.table.events import (
    BettingClosed,
    Event,
    RoundSettled,
    RoundVoided,
    ShoeEnded,
    ShoeStarted,
)

log = logging.getLogger("baccarat.server")


class TableLedger:
    """One table's writes through the store, in the order its events happened."""

    def __init__(
        self, table: Table, table_id: str, store: Store, metrics: Metrics, epoch: int = 0
    ) -> None:
        self.table = table
        self.table_id = table_id
        self.store = store
        self.metrics = metrics
        self.epoch = epoch
        """The table's epoch this node holds; every write carries it."""
        self.fenced = False
        """The database refused this node's epoch: another node runs the table now."""
        self.draining = False
        """Shutting down: take no new stakes."""
        self.open_round: str | None = None
        """The round whose stakes are in escrow and not yet settled."""
        self.voided: set[str] = set()

    async def record(self, events: list[Event]) -> list[Event]:
        """Write what ``events`` require; return them with any events the writing caused."""
        out: list[Event] = []
        for ev in events:
            out.append(ev)
            match ev:
                # A shoe without a seed (a fixed test shoe) has no commitment to record.
                case ShoeStarted(shoe_id=shoe_id, commitment=str() as commitment):
                    await asyncio.to_thread(
                        self.store.record_shoe_start, shoe_id, self.table_id, commitment
                    )
                case ShoeEnded(shoe_id=shoe_id, seed=str() as seed):
                    await asyncio.to_thread(self.store.record_shoe_end, shoe_id, seed)
                case BettingClosed():
                    out.extend(await self._escrow(ev))
                case RoundSettled():
                    out.extend(await self._settle(ev))
        return out

    async def _escrow(self, ev: BettingClosed) -> list[Event]:
        round_id = ev.round_id
        bets = facts.bet_records(ev)
        if self.draining:
            if not bets:
                # Nothing to hold, and a round opened now would only delay the shutdown.
                return []
            self.voided.add(round_id)
            return [RoundVoided(round_id, "The server is shutting down; no stake was taken.")]
        op = Escrow(round_id, self.table_id, ev.shoe_id, ev.round_no, ev.dealer, bets, self.epoch)
        try:
            await asyncio.wrap_future(self.store.submit(op))
        except Exception as exc:
            # Nothing moved (escrow is one transaction): the round plays out but settles nothing.
            self._note_fenced(exc)
            log.warning(
                "escrow refused; round voided",
                extra={"table_id": self.table_id, "round_id": round_id, "error": str(exc)},
            )
            self.voided.add(round_id)
            self.metrics.rounds_voided.inc()
            return [
                RoundVoided(round_id, "The stakes could not be taken; this round settles nothing.")
            ]
        self.open_round = round_id
        return []

    async def _settle(self, ev: RoundSettled) -> list[Event]:
        round_id = ev.round_id
        if round_id in self.voided:
            self.voided.discard(round_id)
            return await self._reload_coins()
        if self.open_round != round_id:
            return []
        s = ev.settlement
        op = Settle(
            round_id,
            tuple(wire.card(c) for c in ev.cards),
            wire.outcome(ev.outcome),
            dict(s.deltas),
            dict(s.commission),
            s.house,
            self.epoch,
        )
        self.open_round = None
        try:
            await asyncio.wrap_future(self.store.submit(op))
        except Exception as exc:
            if self._note_fenced(exc):
                # The node that took the table voided this round as it took it.
                log.warning("settlement refused: table taken over", extra={"round_id": round_id})
                self.metrics.rounds_voided.inc()
                return [
                    RoundVoided(
                        round_id, "The table moved to another node; every stake was returned."
                    )
                ]
            # The ledger refused the payout: give every stake back rather than leave it held.
            log.exception("settlement refused; voiding", extra={"round_id": round_id})
            await asyncio.wrap_future(self.store.submit(Void(round_id, self.epoch)))
            self.metrics.rounds_voided.inc()
            return [
                RoundVoided(round_id, "The round could not be paid out; every stake was returned."),
                *await self._reload_coins(),
            ]
        self.metrics.rounds.labels(self.table_id).inc()
        return []

    async def _reload_coins(self) -> list[Event]:
        """After a voided round the table's coins are wrong: the store is the truth."""
        events: list[Event] = []
        loop = asyncio.get_running_loop()
        for user_id in facts.seated(self.table):
            coins = await asyncio.to_thread(self.store.balance, user_id)
            try:
                events.extend(self.table.handle(SetCoins(user_id, coins), loop.time()))
            except BaccaratError as exc:
                log.warning("coins not reloaded", extra={"user_id": user_id, "code": exc.code})
        return events

    async def void_open(self, why: str) -> None:
        """Return the stakes of the round in escrow, if any."""
        if self.open_round is None:
            return
        round_id, self.open_round = self.open_round, None
        try:
            await asyncio.wrap_future(self.store.submit(Void(round_id, self.epoch)))
        except Exception as exc:
            if not self._note_fenced(exc):
                raise
            # Taken over: the new owner voided the round in the same transaction.
            return
        self.metrics.rounds_voided.inc()
        log.info(f"round voided at {why}", extra={"table_id": self.table_id, "round_id": round_id})

    def _note_fenced(self, exc: BaseException) -> bool:
        """Whether ``exc`` says another node holds the table now (and remember it)."""
        if isinstance(exc, Conflict) and exc.code == "stale_epoch":
            self.fenced = True
        return self.fenced
