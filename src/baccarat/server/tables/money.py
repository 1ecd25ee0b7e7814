"""A round's money from the close of betting to its settlement: stakes, escrow, payout, void.

A round's stakes move into escrow when betting closes and out when it settles, each in one
ledger transaction whose records are built here from the table's events. A round nobody bet
on is written the same way (an empty escrow, a settlement of zeros), so history and the
audit see every round dealt.

From the close of betting until its settlement (or void) is committed, a round's users have
coins in flight (:class:`~baccarat.server.tables.inflight.CoinsInFlight`): no other table may
seat them on a balance the settlement is about to change. A settlement is announced
(``round_settled``) only after the ledger accepted it. When the ledger refuses (a table that
disagrees with the ledger: a bug), the round is voided instead: it moves no coin, and
``round_voided`` is announced in place of the settlement.

With a platform that keeps its players' coins (``wallet``), each bettor's stakes are debited
from it first, just before the escrow; a bettor whose stakes the platform did not give gets
them back at the table (``Unstake``), and the round plays on for the rest. Then the dealer's
cover of the bets that stayed: what the dealer would pay in the worse outcome. The round is
called off when the cover is not given, or when the book leaned on stakes that were not.
What the round left goes back to the platform just after it lands.

Every void is counted by its reason (``baccarat_rounds_voided``): the store's reason when
this node writes the void, ``taken_over`` when another node's takeover voided the round, and
``abandoned`` when the table stopped before the database took its stakes.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Mapping

from baccarat.cluster.outage import log_failure
from baccarat.errors import BaccaratError
from baccarat.server.metrics import Metrics
from baccarat.server.tables.inflight import CoinsInFlight
from baccarat.server.tables.retry import VOIDED_TAKEN_OVER, TableWrites
from baccarat.server.tables.wallet import Wallet
from baccarat.store import (
    VOID_ESCROW_REFUSED,
    VOID_SETTLEMENT_REFUSED,
    VOID_SHUTDOWN,
    VOID_WALLET,
    BetRecord,
    Escrow,
    Unescrowed,
    Void,
)
from baccarat.store.dealt import settle_op
from baccarat.table import Table, Unstake
from baccarat.table.events import BettingClosed, Event, RoundSettled, RoundVoided

log = logging.getLogger("baccarat.server")

Undo = Mapping[int, int] | None
"""A voided round's results, which the table counted and its balances must lose (None: no
balance to set again)."""


def bet_records(ev: BettingClosed) -> tuple[BetRecord, ...]:
    """The ledger's bet records from a ``betting_closed`` event."""
    return tuple(
        BetRecord(user_id=b.user_id, area=b.area, chips=b.chips, coins=b.coins, at=b.at)
        for b in ev.bets
    )


def escrow_op(ev: BettingClosed, table_id: str, bets: tuple[BetRecord, ...], epoch: int) -> Escrow:
    """The ledger's write of a round's stakes (``bets``: those the wallet gave)."""
    return Escrow(
        ev.round_id, table_id, ev.shoe_id, ev.round_no, ev.dealer, bets, epoch, ev.first_card
    )


def unescrowed_op(ev: BettingClosed, table_id: str, epoch: int, reason: str) -> Unescrowed:
    """The ledger's record of a round whose stakes were not taken, voided for ``reason``."""
    return Unescrowed(
        ev.round_id, table_id, ev.shoe_id, ev.round_no, ev.dealer, epoch, reason, ev.first_card
    )


async def take_stakes(
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


class RoundMoney:
    """One table's rounds from escrow to settlement, written through ``writes``."""

    def __init__(
        self,
        table: Table,
        writes: TableWrites,
        inflight: CoinsInFlight,
        clock: Callable[[], float],
    ) -> None:
        self.table = table
        self.writes = writes
        self.inflight = inflight
        self.clock = clock
        self.wallet: Wallet | None = None
        """The platform's wallet, for the users it keeps (None: the ledger keeps everyone's)."""
        self.draining = False
        """Shutting down: take no new stakes."""
        self.round_landed = asyncio.Event()
        """Set while no round is in escrow (what a draining table waits for)."""
        self.round_landed.set()
        self._open_round: str | None = None
        self.voided: set[str] = set()
        """Rounds voided at the close, whose settlement is not announced."""

    @property
    def table_id(self) -> str:
        return self.writes.table_id

    @property
    def metrics(self) -> Metrics:
        return self.writes.metrics

    @property
    def open_round(self) -> str | None:
        """The round whose stakes are in escrow and not yet settled."""
        return self._open_round

    @open_round.setter
    def open_round(self, round_id: str | None) -> None:
        self._open_round = round_id
        if round_id is None:
            self.round_landed.set()
        else:
            self.round_landed.clear()

    async def escrow(self, ev: BettingClosed) -> tuple[list[Event], list[Event]]:
        """Take the round's stakes: the events to announce with the close, and the events of
        stakes the wallet did not give, to announce after the rest of the close."""
        round_id = ev.round_id
        bets = bet_records(ev)
        if self.draining and bets:
            # No stake is taken now; the round is recorded voided all the same, so that the
            # cards it shows are never dealt again when the shoe is dealt on.
            self.voided.add(round_id)
            await self._record_refused(ev, VOID_SHUTDOWN)
            return [RoundVoided(round_id, "The server is shutting down; no stake was taken.")], []
        # Before the stakes are taken: from now on these balances are the round's until it
        # lands.
        self.inflight.hold(self.table_id, round_id, {ev.dealer, *(b.user_id for b in bets)})
        returned: list[Event] = []
        if self.wallet is not None:
            took = take_stakes(self.table, ev, bets, self.wallet, self.clock)
            taken = await self.writes.standing_still(took)
            if taken is None:
                self.inflight.land(round_id)
                return await self._wallet_refused(ev), []
            bets, returned = taken
        try:
            await self.writes.write(escrow_op(ev, self.table_id, bets, self.writes.epoch))
        except Exception as exc:
            return await self._escrow_refused(ev, exc), []
        self.open_round = round_id
        return [], returned

    async def _escrow_refused(self, ev: BettingClosed, exc: Exception) -> list[Event]:
        # Nothing moved (escrow is one transaction): the round plays out but settles
        # nothing. Unless another node took the table (or it is stopping), the table
        # believed in stakes the ledger does not hold: a bug.
        round_id = ev.round_id
        self.inflight.land(round_id)
        expected = self.writes.note_fenced(exc) or self.writes.given_up
        log.log(
            logging.WARNING if expected else logging.ERROR,
            "escrow refused; round voided",
            extra={"table_id": self.table_id, "round_id": round_id, "error": str(exc)},
        )
        if not expected:
            await self._record_refused(ev)
        await give_back(self.wallet, round_id)
        self.voided.add(round_id)
        self.metrics.rounds_voided.labels(self.writes.void_reason(VOID_ESCROW_REFUSED)).inc()
        return [RoundVoided(round_id, "The stakes could not be taken; this round settles nothing.")]

    async def _wallet_refused(self, ev: BettingClosed) -> list[Event]:
        """The platform's wallet did not give what the round needs: it settles nothing."""
        log.info(
            "round called off: the wallet did not give its stakes",
            extra={"table_id": self.table_id, "round_id": ev.round_id},
        )
        await self._record_refused(ev, VOID_WALLET)
        await give_back(self.wallet, ev.round_id)
        self.voided.add(ev.round_id)
        self.metrics.rounds_voided.labels(VOID_WALLET).inc()
        return [
            RoundVoided(
                ev.round_id, "The platform's wallet did not give the stakes; no coin moved."
            )
        ]

    async def _record_refused(self, ev: BettingClosed, reason: str = VOID_ESCROW_REFUSED) -> None:
        """Keep the round whose stakes were refused in the store, voided, for the audit."""
        op = unescrowed_op(ev, self.table_id, self.writes.epoch, reason)
        try:
            await asyncio.wrap_future(self.writes.store.submit(op))
        except Exception as exc:
            # Refused for a stale epoch is expected: another node took the table (and voids).
            fenced = self.writes.note_fenced(exc)
            log.log(logging.WARNING if fenced else logging.ERROR, "refused round not recorded",
                    extra={"table_id": self.table_id, "round_id": ev.round_id, "error": str(exc)})  # fmt: skip

    async def settle(self, ev: RoundSettled) -> tuple[list[Event], Undo]:
        """The settlement to announce once the ledger took it, or what replaces it; and the
        results to take back from the table's balances when the round was voided."""
        round_id = ev.round_id
        if round_id in self.voided:
            # Its void was announced when betting closed; no settlement is announced.
            self.voided.discard(round_id)
            return [], ev.settlement.deltas
        if self.open_round != round_id:
            return [ev], None
        op = settle_op(round_id, ev.cards, ev.outcome, ev.settlement, self.writes.epoch)
        self.open_round = None
        try:
            await self.writes.write(op)
        except Exception as exc:
            try:
                return await self._refused(round_id, exc, ev.settlement.deltas)
            finally:
                self.inflight.land(round_id)
        self.inflight.land(round_id)
        await give_back(self.wallet, round_id)
        self.metrics.rounds.labels(self.table_id).inc()
        return [ev], None

    async def _refused(
        self, round_id: str, exc: Exception, undo: Mapping[int, int]
    ) -> tuple[list[Event], Undo]:
        """The ledger refused a settlement (of results ``undo``): what to announce instead."""
        if self.writes.note_fenced(exc):
            # The node that took the table voided this round as it took it.
            log.warning("settlement refused: table taken over", extra={"round_id": round_id})
            self.metrics.rounds_voided.labels(VOIDED_TAKEN_OVER).inc()
            moved = "The table moved to another node; every stake was returned."
            return [RoundVoided(round_id, moved)], None
        # The table disagreed with the ledger: a bug. Give every stake back rather than leave
        # it held, and announce the void, not the settlement.
        log.error(
            "settlement refused; round voided",
            exc_info=exc,
            extra={"table_id": self.table_id, "round_id": round_id},
        )
        await self.writes.write(Void(round_id, self.writes.epoch, VOID_SETTLEMENT_REFUSED))
        await give_back(self.wallet, round_id)
        self.metrics.rounds_voided.labels(VOID_SETTLEMENT_REFUSED).inc()
        unpaid = "The round could not be paid out; every stake was returned."
        return [RoundVoided(round_id, unpaid)], undo

    async def void_open(self, why: str) -> None:
        """Return the stakes of the round in escrow, if any."""
        if self.open_round is None:
            return
        round_id, self.open_round = self.open_round, None
        try:
            async with self.writes.lock:
                await self.writes.write(Void(round_id, self.writes.epoch, VOID_SHUTDOWN))
        except Exception as exc:
            self.inflight.land(round_id)
            if self.writes.note_fenced(exc):
                return  # taken over: the new owner voided the round as it took the table
            if not self.writes.given_up:
                raise
            log.warning(
                "round left in escrow for the next node to void",
                extra={"table_id": self.table_id, "round_id": round_id},
            )
            return
        self.inflight.land(round_id)
        await give_back(self.wallet, round_id)
        self.metrics.rounds_voided.labels(VOID_SHUTDOWN).inc()
        log.info(f"round voided at {why}", extra={"table_id": self.table_id, "round_id": round_id})
